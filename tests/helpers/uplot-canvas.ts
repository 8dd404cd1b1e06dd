/**
 * A real uPlot in jsdom, on a canvas that draws nothing: what uPlot needs of a browser that jsdom
 * lacks. Call `uPlotGlobals` before anything loads uPlot (a file's mock of the client's chart loads it).
 */
import { vi } from 'vitest';

/** What uPlot reads as it loads (`matchMedia`), and what it draws with: paths that go nowhere. */
export function uPlotGlobals() {
  window.matchMedia = () => ({ matches: false, addEventListener() {}, removeEventListener() {} }) as unknown as MediaQueryList;
  globalThis.Path2D = class {
    moveTo() {}
    lineTo() {}
    rect() {}
    arc() {}
    closePath() {}
    addPath() {}
    bezierCurveTo() {}
  } as unknown as typeof Path2D;
}

/** A 2D context that draws nothing and measures every text 30 px wide, for every canvas from now on. */
export function blankCanvas() {
  const context = new Proxy({}, { get: (_target, name) => (name === 'measureText' ? () => ({ width: 30 }) : () => {}), set: () => true });
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(context as unknown as CanvasRenderingContext2D);
}
