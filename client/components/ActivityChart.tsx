import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import type { AnalyticsDay } from '../../shared/schemas/analytics';
import { countAxes, drawChart } from '../lib/chart';
import { localeOf } from '../lib/locale';
import { useLanguage } from '../lib/i18n';

export interface ActivitySeries {
  key: keyof Omit<AnalyticsDay, 'date'>;
  label: string;
  color: string;
}

const HEIGHT = 260;

/**
 * The moderators' daily counts as lines over the days (uPlot: small, canvas, fast). Loaded only by the
 * admin page, in a chunk of its own; the table beside it carries the same numbers for screen readers.
 */
export function ActivityChart({ days, series, label }: { days: AnalyticsDay[]; series: ActivitySeries[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const language = useLanguage((state) => state.language);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const data: uPlot.AlignedData = [
      days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000),
      ...series.map((each) => days.map((day) => day[each.key])),
    ];
    // The days are UTC's, as the page says: "5 nov" in Spanish, "5 Nov" or "Nov 5" in English.
    const day = new Intl.DateTimeFormat(localeOf(language), { day: 'numeric', month: 'short', timeZone: 'UTC' });
    return drawChart(
      element,
      HEIGHT,
      {
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_chart, _min, max) => [0, Math.max(1, max)] } },
        axes: countAxes({ values: (_chart, splits) => splits.map((seconds) => day.format(seconds * 1000)) }, language),
        // The labels only: values under a pointer are of little use on a phone, and the table has them.
        legend: { live: false },
        series: [{}, ...series.map((each) => ({ label: each.label, stroke: each.color, width: 2, points: { show: days.length <= 31 } }))],
      },
      data,
    );
  }, [days, series, language]);

  return <div ref={box} className="admin-chart" role="img" aria-label={label} />;
}
