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

const onVisibilityChange = (listener: () => void) => {
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
};

/** Whether the page is in view (not a hidden tab, a locked phone), as it changes. */
export function usePageVisible(): boolean {
  return useSyncExternalStore(onVisibilityChange, () => document.visibilityState === 'visible');
}
