/** What can take focus in a field, in the order tried (a hidden one cannot). */
const FOCUSABLE = 'input:not([type="hidden"]):not(:disabled), select:not(:disabled), textarea:not(:disabled), button:not(:disabled), [tabindex]:not([tabindex="-1"])';

/**
 * After a refused save, the first field the server found wrong (its error line, in the page's order):
 * scrolled into view whole, clear of the top bar and of anything stuck over the bottom (the fields'
 * `scroll-margin`, in the form's CSS), and focused, so that a screen reader is taken there and reads it.
 */
export function revealFirstError(form: HTMLFormElement | null) {
  const error = form?.querySelector<HTMLElement>('.field-error');
  const field = error?.closest<HTMLElement>('.field, fieldset');
  if (!error || !field) return;
  field.scrollIntoView?.({ block: 'nearest' });
  const controls = [...field.querySelectorAll<HTMLElement>('[aria-invalid="true"]'), ...field.querySelectorAll<HTMLElement>(FOCUSABLE)];
  for (const control of controls) {
    control.focus({ preventScroll: true });
    if (document.activeElement === control) return;
  }
  // Nothing in it takes focus: the error line itself, then.
  error.tabIndex = -1;
  error.focus({ preventScroll: true });
}
