import uPlot from 'uplot';
import { countAxes, drawChart } from './chart';
import { localeOf } from './locale';
import type { Language } from '../../shared/constants';
import type { EventStats } from '../../shared/schemas/events';

const HEIGHT = 200;
/** One slot of the timeline, in seconds. */
const SLOT_S = 15 * 60;

/**
 * The host screen's timeline (check-ins and matches per 15 minutes) as bars, drawn by uPlot (small,
 * canvas) into `element`; returns what removes it. Its own chunk, loaded only by the host screen, and
 * free of React so that loading it moves nothing else between chunks.
 */
export function drawEventChart(
  element: HTMLElement,
  timeline: EventStats['timeline'],
  labels: { checkIns: string; matches: string },
  language: Language,
): () => void {
  const styles = getComputedStyle(document.documentElement);
  const accent = styles.getPropertyValue('--accent').trim() || '#be123c';
  const warm = styles.getPropertyValue('--warm').trim() || '#f97316';
  const times = timeline.map((slot) => Date.parse(slot.at) / 1000);
  const data: uPlot.AlignedData = [times, timeline.map((slot) => slot.check_ins), timeline.map((slot) => slot.matches)];
  return drawChart(
    element,
    HEIGHT,
    {
      cursor: { drag: { x: false, y: false } },
      legend: { live: false },
      scales: {
        // Half a slot either side, so that the first and the last bars are whole. From the slots, not
        // from the min and max uPlot passes: for a single one (the first 15 minutes after the doors
        // open) it stretches the scale to a thousand days, every tick "Jan 1" and the bar at the edge.
        x: { time: true, range: () => [times[0]! - SLOT_S / 2, times[times.length - 1]! + SLOT_S / 2] },
        y: { range: (_self, _min, max) => [0, Math.max(1, max)] },
      },
      // Room for "10:30 PM" between ticks.
      axes: countAxes({ values: timeTicks(language), space: 70 }, language),
      series: [
        {},
        { label: labels.checkIns, stroke: accent, fill: `${accent}cc`, paths: uPlot.paths.bars?.({ size: [0.7, 24] }), points: { show: false } },
        { label: labels.matches, stroke: warm, fill: `${warm}cc`, paths: uPlot.paths.bars?.({ size: [0.35, 12] }), points: { show: false } },
      ],
    },
    data,
  );
}

/**
 * The time axis's labels in the reader's language (uPlot's own are American English whatever the
 * page's: "10pm", "11/22"): the time of each tick ("22:00" in Spanish), and the day at midnight.
 */
export function timeTicks(language: Language) {
  const time = new Intl.DateTimeFormat(localeOf(language), { hour: 'numeric', minute: '2-digit' });
  const day = new Intl.DateTimeFormat(localeOf(language), { day: 'numeric', month: 'short' });
  return (_self: unknown, splits: number[]) =>
    splits.map((seconds) => {
      const date = new Date(seconds * 1000);
      return date.getHours() === 0 && date.getMinutes() === 0 ? day.format(date) : time.format(date);
    });
}
