// @vitest-environment jsdom
/**
 * The host chart's time axis as uPlot lays it out (a real uPlot, on a canvas that draws nothing): its
 * labels are the times around the slots, also for the single slot of the first 15 minutes.
 */
import type uPlot from 'uplot';
import { describe, expect, it, vi } from 'vitest';
import { blankCanvas, uPlotGlobals } from '../helpers/uplot-canvas';

/** The labels uPlot last put under the chart drawn by drawEventChart, with a real uPlot on a canvas that draws nothing. */
const chart = vi.hoisted(() => ({ labels: [] as string[] }));
vi.mock('../../client/lib/chart', async (importOriginal) => {
  const { default: uPlot } = await import('uplot');
  return {
    ...(await importOriginal<typeof import('../../client/lib/chart')>()),
    drawChart: (element: HTMLElement, height: number, options: uPlot.Options, data: uPlot.AlignedData) => {
      const axis = options.axes![0]!;
      const values = axis.values as (self: uPlot, splits: number[]) => string[];
      axis.values = (self: uPlot, splits: number[]) => (chart.labels = values(self, splits));
      const plot = new uPlot({ ...options, width: 320, height }, data, element);
      return () => plot.destroy();
    },
  };
});
// Before the chart's module loads uPlot.
uPlotGlobals();
const { drawEventChart } = await import('../../client/lib/event-chart');

/** The time axis's labels of a chart of check-ins at these local times of an evening (Spanish). */
async function axisOf(...times: [hour: number, minute: number][]) {
  blankCanvas();
  chart.labels = [];
  const timeline = times.map(([hour, minute]) => ({ at: new Date(2026, 10, 21, hour, minute).toISOString(), check_ins: 3, matches: 0 }));
  const remove = drawEventChart(document.createElement('div'), timeline, { checkIns: 'Entradas', matches: 'Matches' }, 'es');
  // uPlot lays out and draws in a microtask.
  await vi.waitFor(() => expect(chart.labels.length).toBeGreaterThan(0));
  remove();
  return chart.labels;
}

describe("the host chart's time axis", () => {
  it('reads the times around a single slot (the first 15 minutes after the doors open), not a thousand days', async () => {
    // It read "1 ene" three times, the one bar at the left edge: uPlot stretches a scale of a single
    // value in seconds to 86,400,000 of them, its ticks on New Year's days.
    const labels = await axisOf([22, 0]);
    expect(labels).toContain('22:00');
    for (const label of labels) expect(label).toMatch(/^(21:5\d|22:0\d)$/);
  });

  it('reads the times from half a slot before the first to half a slot after the last', async () => {
    const labels = await axisOf([22, 0], [22, 15], [22, 30], [22, 45]);
    expect(labels).toContain('22:00');
    for (const label of labels) expect(label).toMatch(/^(21:5\d|22:\d\d)$/);
  });
});
