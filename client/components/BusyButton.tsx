import type { ButtonHTMLAttributes } from 'react';

/**
 * A button that, while `busy`, is drawn as disabled and sends nothing more (neither its action nor its
 * form), yet is not `disabled`: a browser moves a disabled button's focus to the page's <body>, so that
 * when the action fails the error shows with the focus gone (Escape no longer closes what it was in, a
 * screen reader is sent back to the page's top). `disabled` stays for a button unavailable for another
 * reason (an invalid code, payments off).
 */
export function BusyButton({ busy, onClick, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean }) {
  return (
    <button
      {...props}
      aria-disabled={busy}
      onClick={(event) => {
        // preventDefault: a submit button's press, or Enter in a field of its form, submits nothing.
        if (busy) return event.preventDefault();
        onClick?.(event);
      }}
    />
  );
}
