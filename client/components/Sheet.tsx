import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useBackCloses } from '../lib/back-closes';
import { errorMessage } from '../lib/errors';
import { useT } from '../lib/i18n';
import { toast } from '../lib/toast';
import { BusyButton } from './BusyButton';
// Its own styles: the public event page's switch question is a sheet outside the app's pages.
import '../sheet.css';

const FOCUSABLE = 'a[href], button:not(:disabled), input:not(:disabled), textarea:not(:disabled), select:not(:disabled), [tabindex]:not([tabindex="-1"])';

const focusables = (root: HTMLElement) => [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];

/**
 * A modal dialog, shown as a bottom sheet on a phone and a card on a wide screen. Focus goes to the
 * element marked `data-autofocus` (else the first control), stays inside while open (Tab wraps),
 * and returns to what had it when the sheet closes (the page's heading when that is gone); Escape, a tap outside and the back gesture
 * (`useBackCloses`) close it unless `busy`. The toasts up when it opens make way (`toast.makeWay`):
 * above it, they would cover its title and focused control on a phone.
 * Hand-written rather than a dialog library: the app's bundle budget has a few KB left, and the
 * native <dialog> has no showModal in jsdom, where its tests run.
 */
export function Sheet({ labelledBy, onClose, busy = false, children }: { labelledBy: string; onClose: () => void; busy?: boolean; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useBackCloses(true, () => {
    if (busy) return false;
    onClose();
    return true;
  });

  useEffect(() => {
    const toastsBack = toast.makeWay();
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const node = ref.current;
    if (node) (node.querySelector<HTMLElement>('[data-autofocus]') ?? focusables(node)[0] ?? node).focus();
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      toastsBack();
      document.body.style.overflow = overflow;
      if (previous?.isConnected) return previous.focus();
      // What opened it went with what it did (leaving the event takes its card, unblocking a person
      // their row): the page's heading, not <body>, where a screen reader would start over.
      const heading = document.querySelector<HTMLElement>('main h1');
      if (!heading || (document.activeElement && document.activeElement !== document.body)) return;
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    };
  }, []);

  // What changed in it (a failure's line above the buttons) may have pushed the focused control out of
  // the sheet's view: scrolled back, so that a user sees the button they pressed — with the actions
  // around it, or Cancel under it would stay past the sheet's edge (a report's limit line on a phone).
  // (In braces: Chromium's scrollIntoView answers a promise, which React would take for a cleanup.)
  useEffect(() => {
    const focused = ref.current?.querySelector(':focus');
    (focused?.closest('.sheet-actions') ?? focused)?.scrollIntoView?.({ block: 'nearest' });
  });

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.stopPropagation();
      if (!busy) onClose();
      return;
    }
    if (event.key !== 'Tab' || !ref.current) return;
    const items = focusables(ref.current);
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) {
      event.preventDefault();
      return;
    }
    // A group of radios is one stop for Tab: from any of its radios (the one checked, say the third), Tab
    // goes past the whole group, out of the sheet when the group is its first or last stop.
    const active = document.activeElement;
    const stop = (item: Element | null) => (item instanceof HTMLInputElement && item.type === 'radio' && item.name) || item;
    if (event.shiftKey && (stop(active) === stop(first) || active === ref.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && stop(active) === stop(last)) {
      event.preventDefault();
      first.focus();
    }
  }

  // On top of the whole page wherever it is opened from: inside the fixed top bar, its stacking level
  // would be the bar's, under the bottom navigation.
  return createPortal(
    <div
      className="sheet-backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget && !busy) onClose();
      }}
    >
      <div ref={ref} className="sheet" role="dialog" aria-modal="true" aria-labelledby={labelledBy} aria-busy={busy} tabIndex={-1} onKeyDown={onKeyDown}>
        {children}
      </div>
    </div>,
    document.body,
  );
}

/**
 * The confirm button, with Cancel (or `cancelLabel`) under it; Cancel takes the focus unless
 * `cancelFirst` is false, so that nothing destructive is one Enter away. Without `onConfirm` the
 * confirm button submits its form.
 */
export function SheetActions({
  confirmLabel,
  cancelLabel,
  tone = 'danger',
  busy,
  onConfirm,
  onClose,
  cancelFirst = true,
}: {
  confirmLabel: ReactNode;
  /** Instead of "Cancel" (whose copy comes with the safety dialogs). */
  cancelLabel?: string;
  tone?: 'danger' | 'primary';
  busy: boolean;
  onConfirm?: () => void;
  onClose: () => void;
  cancelFirst?: boolean;
}) {
  const t = useT();
  return (
    <div className="sheet-actions">
      {/* Busy, it keeps the focus: a failure leaves it in the sheet (Escape still closes it). */}
      <BusyButton type={onConfirm ? 'button' : 'submit'} className={`btn btn-${tone} btn-block`} busy={busy} onClick={onConfirm}>
        {/* One flex item: a label that holds a name ("Entrar en <bdi>…</bdi>") wraps as one sentence,
            not as the words and the name in two columns side by side. */}
        <span>{confirmLabel}</span>
      </BusyButton>
      <button type="button" className="btn btn-ghost-muted btn-block" disabled={busy} onClick={onClose} data-autofocus={cancelFirst || undefined}>
        {cancelLabel ?? t('safety.cancel')}
      </button>
    </div>
  );
}

/** A confirm step: a title, what will happen (children), an error if the action failed, and the two buttons. */
export function ConfirmSheet({
  title,
  children,
  error,
  onClose,
  ...actions
}: { title: ReactNode; children: ReactNode; error: string | null } & Omit<Parameters<typeof SheetActions>[0], 'cancelFirst'>) {
  const titleId = useId();
  return (
    <Sheet labelledBy={titleId} onClose={onClose} busy={actions.busy}>
      <h2 id={titleId}>{title}</h2>
      {children}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <SheetActions {...actions} onClose={onClose} />
    </Sheet>
  );
}

/**
 * A confirm sheet's action: busy while it runs, then `done` (the sheet closes); a failure is said in
 * the sheet, which stays for another try.
 */
export function useSheetAction(action: () => Promise<void>, done: () => void) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run() {
    setBusy(true);
    setError(null);
    try {
      await action();
      done();
    } catch (failure) {
      setError(errorMessage(failure, t));
      setBusy(false);
    }
  }
  return { busy, error, run: () => void run() };
}
