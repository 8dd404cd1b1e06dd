import { create } from 'zustand';

/**
 * Toasts: top-right unless a toast asks for bottom-right (register), newest on top,
 * closed after TOAST_AUTO_CLOSE_MS. Raised from anywhere; they wait here until <Toaster> (mounted
 * when the browser is idle) shows them.
 */
export type ToastKind = 'success' | 'error' | 'info';
export type ToastPosition = 'top-right' | 'bottom-right';
export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  position: ToastPosition;
}

export const useToasts = create<{ toasts: Toast[] }>()(() => ({ toasts: [] }));

let lastId = 0;
const raise = (kind: ToastKind) => (message: string, options: { position?: ToastPosition } = {}) => {
  const item: Toast = { id: ++lastId, kind, message, position: options.position ?? 'top-right' };
  useToasts.setState((state) => ({ toasts: [item, ...state.toasts] }));
  return item.id;
};

export const toast = {
  success: raise('success'),
  error: raise('error'),
  info: raise('info'),
  /** One toast, or all of them. */
  dismiss: (id?: number) => useToasts.setState((state) => ({ toasts: id === undefined ? [] : state.toasts.filter((item) => item.id !== id) })),
};
