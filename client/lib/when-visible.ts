import { useSyncExternalStore } from 'react';

/**
 * Calls `refresh` each time the page comes back into view (the phone unlocked, the tab shown again),
 * at most once per `minMs` (0: every time): what changed meanwhile, elsewhere, is read again.
 * Answers the function that stops it (an effect's cleanup).
 */
export function refreshWhenVisible(refresh: () => void, minMs = 0): () => void {
  let last = performance.now();
  const onChange = () => {
    if (document.visibilityState !== 'visible' || performance.now() - last < minMs) return;
    last = performance.now();
    refresh();
  };
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
}

/**
 * Calls `done` once the page has been in view for `ms` on end: the count starts when it comes into view
 * and starts again if it goes out of view first (the phone locked, another app in front), so that what
 * is shown for that long is seen for that long. Answers the function that cancels it.
 */
export function afterInViewFor(ms: number, done: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onChange);
  };
  const onChange = () => {
    clearTimeout(timer);
    if (document.visibilityState !== 'visible') return;
    timer = setTimeout(() => {
      stop();
      done();
    }, ms);
  };
  document.addEventListener('visibilitychange', onChange);
  onChange();
  return stop;
}

const onVisibilityChange = (listener: () => void) => {
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
};

/** Whether the page is in view (not a hidden tab, a locked phone), as it changes. */
export function usePageVisible(): boolean {
  return useSyncExternalStore(onVisibilityChange, () => document.visibilityState === 'visible');
}
