/**
 * Calls `refresh` each time the page comes back into view (the phone unlocked, the tab shown again),
 * at most once per `minMs`: what another device may have changed meanwhile is read again there.
 * Answers the function that stops it.
 */
export function refreshWhenVisible(refresh: () => void, minMs: number): () => void {
  let last = performance.now();
  const onChange = () => {
    if (document.visibilityState !== 'visible' || performance.now() - last < minMs) return;
    last = performance.now();
    refresh();
  };
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
}
