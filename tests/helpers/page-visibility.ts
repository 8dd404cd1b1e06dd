/** The page hidden, then shown again, as a phone locked and unlocked (jsdom: the document's state set by hand). */
export function comeBack(state: 'visible' | 'hidden' = 'visible') {
  Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
}
