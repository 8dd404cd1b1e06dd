import { type CSSProperties, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { Link, Router } from 'wouter';
import { TOAST_AUTO_CLOSE_MS } from '../../shared/constants';
import { afterOverlays } from '../lib/back-closes';
import { type Toast, type ToastPosition, toast, useToasts } from '../lib/toast';
import { useT } from '../lib/i18n';
import '../toast.css';

const POSITIONS: ToastPosition[] = ['top-right', 'bottom-right'];
/** An error is said at once, over what the screen reader is saying; the others once it is done. */
const LIVE = ['assertive', 'polite'] as const;
const liveFor = (item: Toast) => (item.kind === 'error' ? 'assertive' : 'polite');

/**
 * Where `position`'s toasts of one urgency go: a live region of index.html, there (empty) from the first
 * paint, since a screen reader says only what is added to a region it knew before. Made here if missing.
 */
function liveRegion(position: ToastPosition, live: (typeof LIVE)[number]): Element {
  let stack = document.querySelector(`.toasts-${position}`);
  if (!stack) {
    stack = document.body.appendChild(document.createElement('div'));
    stack.className = `toasts toasts-${position}`;
    stack.innerHTML = '<div aria-live="assertive"></div><div aria-live="polite"></div>';
  }
  return stack.querySelector(`[aria-live=${live}]`)!;
}

/**
 * Top-right, 5000 ms; a toast may ask for another position (register: bottom-right). A toast's link
 * taken while a sheet is open waits for the sheet's history entry to go (`afterOverlays`).
 */
export function Toaster() {
  const toasts = useToasts((state) => state.toasts);
  return (
    <Router aroundNav={afterOverlays}>
      {POSITIONS.flatMap((position) =>
        LIVE.map((live) =>
          createPortal(
            toasts.filter((item) => item.position === position && liveFor(item) === live).map((item) => <ToastView key={item.id} item={item} />),
            liveRegion(position, live),
            `${position}-${live}`,
          ),
        ),
      )}
    </Router>
  );
}

/** What holds a toast's countdown: the pointer on it, the focus in it, the page out of sight, or a sheet over it. */
type Hold = 'pointer' | 'focus' | 'hidden' | 'aside';

/**
 * Closes itself after TOAST_AUTO_CLOSE_MS. The countdown (and its progress bar) waits while anything
 * holds it: the pointer or the focus on it, or the page hidden — a phone put away or another app in
 * front — so that a toast raised just before is still there to read on coming back — or a sheet open
 * over it (`aside`).
 */
function ToastView({ item }: { item: Toast }) {
  const t = useT();
  const left = useRef(TOAST_AUTO_CLOSE_MS);
  const timer = useRef<{ handle: number; started: number } | null>(null);
  const holds = useRef(new Set<Hold>());
  const [held, setHeld] = useState(false);

  const run = () => {
    if (timer.current || holds.current.size > 0) return;
    timer.current = { handle: window.setTimeout(() => toast.dismiss(item.id), left.current), started: Date.now() };
  };
  const stop = () => {
    if (!timer.current) return;
    window.clearTimeout(timer.current.handle);
    left.current -= Date.now() - timer.current.started;
    timer.current = null;
  };
  const hold = (reason: Hold) => {
    holds.current.add(reason);
    setHeld(true);
    stop();
  };
  const release = (reason: Hold) => {
    holds.current.delete(reason);
    setHeld(holds.current.size > 0);
    run();
  };

  useEffect(() => {
    const visibility = () => (document.hidden ? hold('hidden') : release('hidden'));
    document.addEventListener('visibilitychange', visibility);
    if (document.hidden) hold('hidden');
    else run();
    return () => {
      document.removeEventListener('visibilitychange', visibility);
      stop();
    };
  }, []);
  useEffect(() => (item.aside ? hold('aside') : release('aside')), [item.aside]);

  return (
    <div
      className={`toast toast-${item.kind}`}
      data-aside={item.aside || undefined}
      data-held={held || undefined}
      style={{ '--toast-ms': `${TOAST_AUTO_CLOSE_MS}ms` } as CSSProperties}
      onMouseEnter={() => hold('pointer')}
      onMouseLeave={() => release('pointer')}
      onFocus={() => hold('focus')}
      onBlur={() => release('focus')}
    >
      <p>
        {item.href ? (
          <Link href={item.href} className="toast-link" onClick={() => toast.dismiss(item.id)}>
            <ToastText item={item} />
          </Link>
        ) : (
          <ToastText item={item} />
        )}
      </p>
      <button type="button" className="toast-close" aria-label={t('toast.close')} onClick={() => toast.dismiss(item.id)}>
        ×
      </button>
      <span className="toast-progress" aria-hidden="true" />
    </div>
  );
}

function ToastText({ item }: { item: Toast }) {
  if (!item.title) return item.message;
  return (
    <>
      <strong className="toast-title">
        <bdi>{item.title}</bdi>
      </strong>
      {/* A chat message is the sender's own text: it reads in its own direction. */}
      <span className="toast-text" dir={item.kind === 'message' ? 'auto' : undefined}>
        {item.message}
      </span>
    </>
  );
}
