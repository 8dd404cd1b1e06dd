import { type CSSProperties, useEffect, useRef } from 'react';
import { TOAST_AUTO_CLOSE_MS } from '../../shared/constants';
import { type Toast, type ToastPosition, toast, useToasts } from '../lib/toast';
import { useT } from '../lib/i18n';
import '../toast.css';

const POSITIONS: ToastPosition[] = ['top-right', 'bottom-right'];

/** Top-right, 5000 ms; a toast may ask for another position (register: bottom-right). */
export function Toaster() {
  const toasts = useToasts((state) => state.toasts);
  return (
    <>
      {POSITIONS.map((position) => (
        <div key={position} className={`toasts toasts-${position}`}>
          {toasts
            .filter((item) => item.position === position)
            .map((item) => (
              <ToastView key={item.id} item={item} />
            ))}
        </div>
      ))}
    </>
  );
}

/** Closes itself after TOAST_AUTO_CLOSE_MS; the countdown pauses while the pointer or the focus is on it. */
function ToastView({ item }: { item: Toast }) {
  const t = useT();
  const left = useRef(TOAST_AUTO_CLOSE_MS);
  const timer = useRef<{ handle: number; started: number } | null>(null);
  const start = () => {
    if (timer.current) return;
    timer.current = { handle: window.setTimeout(() => toast.dismiss(item.id), left.current), started: Date.now() };
  };
  const pause = () => {
    if (!timer.current) return;
    window.clearTimeout(timer.current.handle);
    left.current -= Date.now() - timer.current.started;
    timer.current = null;
  };
  useEffect(() => {
    start();
    return pause;
  }, []);

  return (
    <div
      className={`toast toast-${item.kind}`}
      role={item.kind === 'error' ? 'alert' : 'status'}
      style={{ '--toast-ms': `${TOAST_AUTO_CLOSE_MS}ms` } as CSSProperties}
      onMouseEnter={pause}
      onMouseLeave={start}
      onFocus={pause}
      onBlur={start}
    >
      <p>{item.message}</p>
      <button type="button" className="toast-close" aria-label={t('toast.close')} onClick={() => toast.dismiss(item.id)}>
        ×
      </button>
      <span className="toast-progress" aria-hidden="true" />
    </div>
  );
}
