import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

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
