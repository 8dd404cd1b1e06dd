/**
 * A match is felt as well as seen: at a loud party the phone may be in a hand, not in view. Where the
 * browser can vibrate (Android's; not iOS Safari) and the page has been touched, two short pulses;
 * elsewhere nothing. The pattern is short enough not to read as a call.
 */
const MATCH_PATTERN = [40, 60, 90];

export function buzzForMatch() {
  // Not before the page's first touch (a match shown as the app opens): the browser would refuse it.
  if (navigator.userActivation?.hasBeenActive === false) return;
  // The call throws in some embedded browsers whose vibrate is only partly there.
  try {
    navigator.vibrate?.(MATCH_PATTERN);
  } catch {
    // Nothing to feel; the overlay is what counts.
  }
}
