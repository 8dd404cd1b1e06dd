import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Language } from '../../shared/constants';
import { localeOf } from './locale';

/** A count's steps: whole ones, as there is no half a person or half a message ("2,5"). */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000];

/**
 * A uPlot chart (small, canvas) drawn into `element` at its width, following it when it resizes;
 * returns what removes it. Shared by the host screen's timeline and the moderators' activity chart,
 * both in lazy chunks of their own.
 */
export function drawChart(element: HTMLElement, height: number, options: Omit<uPlot.Options, 'width' | 'height'>, data: uPlot.AlignedData): () => void {
  const chart = new uPlot({ ...options, width: element.clientWidth || 320, height }, data, element);
  const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height }));
  resize.observe(element);
  return () => {
    resize.disconnect();
    chart.destroy();
  };
}

/**
 * Both charts' axes: time along `x` (its labels written by the caller, in the reader's language: uPlot's
 * own are American, "11/5"), counts up the side in whole steps, wide enough for their longest label
 * ("12,5" was cut at a fixed 40 px), written as the page's language writes them (uPlot's follow the
 * browser's: "1,500" on a Spanish page read as one and a half). Their labels in the page's muted text
 * colour, dark or light as the page is: uPlot's own black was unreadable on the dark theme.
 */
export function countAxes(x: uPlot.Axis, language: Language): uPlot.Axis[] {
  const muted = getComputedStyle(document.documentElement).getPropertyValue('--muted').trim() || '#57534e';
  const count = new Intl.NumberFormat(localeOf(language));
  return [
    { stroke: muted, ...x },
    {
      stroke: muted,
      incrs: WHOLE_STEPS,
      values: (_self, splits) => splits.map((split) => count.format(split)),
      // The labels' 12 px font: about 7 px a digit, with the ticks and a gap beside them.
      size: (_self, values) => 20 + 7 * Math.max(1, ...(values ?? []).map((value) => value.length)),
    },
  ];
}
