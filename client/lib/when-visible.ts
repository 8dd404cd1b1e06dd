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

/** A count `afterInViewFor` runs: `cancel` stops it; `hold(true)` stops it where it is, `hold(false)` goes on from there. */
export interface InViewTimer {
  cancel: () => void;
  hold: (held: boolean) => void;
}

/**
 * Calls `done` once the page has been in view for `ms` on end: the count starts when it comes into view
 * and starts again if it goes out of view first (the phone locked, another app in front), so that what
 * is shown for that long is seen for that long. A hold (what is shown being read) pauses it: let go,
 * only what was left of it runs.
 */
export function afterInViewFor(ms: number, done: () => void): InViewTimer {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let left = ms;
  let since = 0;
  let held = false;
  const pause = () => {
    if (timer !== undefined) left -= Date.now() - since;
    clearTimeout(timer);
    timer = undefined;
  };
  const run = () => {
    if (held || document.visibilityState !== 'visible') return;
    since = Date.now();
    timer = setTimeout(() => {
      cancel();
      done();
    }, left);
  };
  const onChange = () => {
    pause();
    left = ms;
    run();
  };
  const cancel = () => {
    pause();
    document.removeEventListener('visibilitychange', onChange);
  };
  document.addEventListener('visibilitychange', onChange);
  run();
  return {
    cancel,
    hold(next) {
      if (next === held) return;
      held = next;
      if (held) pause();
      else run();
    },
  };
}

const onVisibilityChange = (listener: () => void) => {
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
};

/** Whether the page is in view (not a hidden tab, a locked phone), as it changes. */
export function usePageVisible(): boolean {
  return useSyncExternalStore(onVisibilityChange, () => document.visibilityState === 'visible');
}
