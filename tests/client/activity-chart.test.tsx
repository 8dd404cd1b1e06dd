// @vitest-environment jsdom
/**
 * The moderators' activity chart as uPlot lays it out (a real uPlot, on a canvas that draws nothing):
 * its days in the page's language, its counts in whole steps wide enough to read, its labels in the
 * page's muted colour (uPlot's black was unreadable on the dark theme), as the host screen's chart.
 */
import { cleanup, render } from '@testing-library/react';
import type uPlot from 'uplot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnalyticsDay } from '../../shared/schemas/analytics';
import { blankCanvas, uPlotGlobals } from '../helpers/uplot-canvas';

/** What the chart last drew: its axes' options and, as uPlot laid them out, their labels and the counts' steps. */
const chart = vi.hoisted(() => ({ axes: [] as uPlot.Axis[], days: [] as string[], steps: [] as number[], counts: [] as string[], width: 0 }));
vi.mock('../../client/lib/chart', async (importOriginal) => {
  const { default: uPlot } = await import('uplot');
  return {
    ...(await importOriginal<typeof import('../../client/lib/chart')>()),
    drawChart: (element: HTMLElement, height: number, options: uPlot.Options, data: uPlot.AlignedData) => {
      chart.axes = options.axes!;
      const [x, y] = options.axes!;
      const values = x!.values as (self: uPlot, splits: number[]) => string[];
      x!.values = (self: uPlot, splits: number[]) => (chart.days = values(self, splits));
      // As uPlot lays out the counts' axis: its steps, and the room it takes for their labels.
      const size = y!.size as (self: uPlot, labels: string[] | null) => number;
      y!.size = (self: uPlot, labels: string[] | null) => {
        chart.steps = (self.axes[1] as unknown as { _splits?: number[] })._splits ?? [];
        chart.counts = labels ?? [];
        return (chart.width = size(self, labels));
      };
      const plot = new uPlot({ ...options, width: 320, height }, data, element);
      return () => plot.destroy();
    },
  };
});
// Before the chart's module loads uPlot.
uPlotGlobals();
const { ActivityChart } = await import('../../client/components/ActivityChart');
const { useLanguage } = await import('../../client/lib/i18n');

/** Thirty days of November (UTC), their sign-ups climbing to `top`. */
const month = (top: number): AnalyticsDay[] =>
  Array.from({ length: 30 }, (_, index) => ({
    date: `2026-11-${String(index + 1).padStart(2, '0')}`,
    signups: Math.round((top * index) / 29),
    logins: 0,
    active_users: 0,
    matches: 0,
    messages: 0,
  }));

async function draw(days: AnalyticsDay[]) {
  blankCanvas();
  chart.days = [];
  chart.steps = [];
  render(<ActivityChart days={days} series={[{ key: 'signups', label: 'Registros', color: '#be123c' }]} label="Actividad" />);
  // uPlot lays out and draws in a microtask.
  await vi.waitFor(() => expect(chart.days.length).toBeGreaterThan(0));
  await vi.waitFor(() => expect(chart.steps.length).toBeGreaterThan(1));
}

describe("the moderators' activity chart", () => {
  afterEach(() => {
    cleanup();
    document.documentElement.style.removeProperty('--muted');
  });

  it('writes its days in Spanish on a Spanish page (it read "11/5 2026"), and its counts in whole steps', async () => {
    useLanguage.setState({ language: 'es' });
    await draw(month(14));
    for (const label of chart.days) expect(label).toMatch(/^\d{1,2} nov$/);
    // It read 0, 2,5, 5, 7,5, 10, 12,5 for sign-ups that only come whole.
    for (const step of chart.steps) expect(Number.isInteger(step)).toBe(true);
  });

  it('gives its counts the room of their longest label ("12,5" was cut at the left)', async () => {
    useLanguage.setState({ language: 'es' });
    await draw(month(1400));
    expect(chart.steps.at(-1)).toBeGreaterThanOrEqual(1000);
    // Four digits of the labels' 12 px font, the ticks and a gap: more than the 40 px it had.
    expect(chart.width).toBeGreaterThan(40);
  });

  it('writes its counts as the page’s language does, not the browser’s ("1,200" read as 1.2 in Spanish)', async () => {
    expect(navigator.language).toBe('en-US');
    useLanguage.setState({ language: 'es' });
    await draw(month(14_000));
    expect(chart.counts.length).toBeGreaterThan(1);
    for (const label of chart.counts) expect(label).toMatch(/^\d{1,3}(\.\d{3})*$|^\d{4}$/);
    expect(chart.counts).toContain('10.000');
    useLanguage.setState({ language: 'en' });
    await draw(month(14_000));
    expect(chart.counts).toContain('10,000');
  });

  it('draws its labels in the page’s muted colour, dark or light as the page is', async () => {
    document.documentElement.style.setProperty('--muted', '#a8a29e');
    await draw(month(14));
    expect(chart.axes.map((axis) => axis.stroke)).toEqual(['#a8a29e', '#a8a29e']);
  });
});
