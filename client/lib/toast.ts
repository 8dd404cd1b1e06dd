import type { ReactNode } from 'react';
import { create } from 'zustand';
import { useLanguage } from './i18n';

/**
 * Toasts: top-right unless a toast asks for bottom-right (register), newest on top,
 * closed after TOAST_AUTO_CLOSE_MS. Raised from anywhere; they wait here until <Toaster> (mounted
 * when the browser is idle) shows them.
 */
export type ToastKind = 'success' | 'error' | 'info' | 'message';
export type ToastPosition = 'top-right' | 'bottom-right';
export interface ToastOptions {
  position?: ToastPosition;
  /** A bold first line (a message's sender). */
  title?: string;
  /** Tapping the toast goes there (and closes it). */
  href?: string;
  /** A new toast with the same key takes the place of the one before (one per conversation). */
  key?: string;
}
export interface Toast extends Omit<ToastOptions, 'position'> {
  id: number;
  kind: ToastKind;
  /** Copy with a person's name in it comes with the name in a <bdi> (`ti`). */
  message: ReactNode;
  position: ToastPosition;
  /** Hidden, its countdown held, while a sheet or a menu is open over it (`makeWay`). */
  aside?: boolean;
}

/** The sign-up's "now sign in": done with once the app is open. */
export const REGISTERED_TOAST = 'registered';

export const useToasts = create<{ toasts: Toast[] }>()(() => ({ toasts: [] }));

let lastId = 0;
/** The sheets and menus open. */
let overlays = 0;
const raise = (kind: ToastKind) => (message: ReactNode, options: ToastOptions = {}) => {
  const item: Toast = { ...options, id: ++lastId, kind, message, position: options.position ?? 'top-right' };
  useToasts.setState((state) => ({
    toasts: [item, ...state.toasts.filter((other) => options.key === undefined || other.key !== options.key)],
  }));
  return item.id;
};

export const toast = {
  success: raise('success'),
  error: raise('error'),
  info: raise('info'),
  /** A chat message that came while its conversation was not on screen. */
  message: raise('message'),
  /** One toast (by its id, or its key), or all of them. */
  dismiss: (which?: number | string) =>
    useToasts.setState((state) => ({ toasts: which === undefined ? [] : state.toasts.filter((item) => item.id !== which && item.key !== which) })),
  /** All but the chat messages' toasts, each the way to a message not read yet: what the app said is done with. */
  dismissSaid: () => useToasts.setState((state) => ({ toasts: state.toasts.filter((item) => item.kind === 'message') })),
  /** The chat messages' toasts (`key`: one conversation's), once the page come to shows them itself. */
  dismissMessages: (key?: string) =>
    useToasts.setState((state) => ({ toasts: state.toasts.filter((item) => item.kind !== 'message' || (key !== undefined && item.key !== key)) })),
  /**
   * A sheet or a menu opens: the toasts up would cover its title and first control on a phone. One that
   * only says something goes (read already); one that leads somewhere (a message, "complete your
   * profile") is put aside, hidden with its countdown held, and comes back once the last one closes.
   * Those raised while it is open show over it. Answers the close.
   */
  makeWay: () => {
    overlays += 1;
    useToasts.setState((state) => ({ toasts: state.toasts.filter((item) => item.href).map((item) => ({ ...item, aside: true })) }));
    return () => {
      overlays -= 1;
      if (overlays === 0) useToasts.setState((state) => ({ toasts: state.toasts.map((item) => ({ ...item, aside: false })) }));
    };
  },
};

// A toast is said in the language of its moment: a switch of language puts away the ones up.
useLanguage.subscribe((state, previous) => {
  if (state.language !== previous.language) toast.dismiss();
});
