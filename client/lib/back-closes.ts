import { useEffect, useRef } from 'react';
import type { AroundNavHandler } from 'wouter';

/**
 * The phone's back gesture closes what is open over the page (a sheet, a menu, the match overlay,
 * the door screen) rather than leaving the page under it, as a phone's own apps do.
 *
 * While one is open, an entry of the same address lies on top of the history (its state marked with
 * the overlay's key): going back over it closes the overlay. Closed any other way (Cancel, Escape, its
 * action done), it goes back over its entry itself, so that none is left behind for a later Back to
 * stop at. A navigation made while one is open (a sheet's action that leads elsewhere) first goes back
 * over the entries, then pushes or replaces as it would have without them: `afterOverlays`, the
 * routers' `aroundNav`.
 *
 * A `history.back()` is done when its `popstate` comes, not when it is called: every change this
 * module makes to the history waits in one queue for the one before it, so that a push or a
 * navigation is never made before a back that would then undo it.
 */

const MARK = 'overlay';
/** This document's keys: an entry left by a page before a reload belongs to another document, which going back to would load. */
const DOCUMENT = Math.random().toString(36).slice(2, 8);
let made = 0;

interface Overlay {
  key: string;
  /** Closes it; false when it cannot close now (busy), which puts its entry back. */
  onBack: () => boolean;
}

/** The overlays open, in the order their entries were pushed. */
const open: Overlay[] = [];
let queue: Promise<void> = Promise.resolve();
let queued = 0;
/** Resolvers of this module's own backs, in order: their `popstate`s are not the user's. */
const ownBacks: (() => void)[] = [];

const currentKey = () => (window.history.state as Record<string, unknown> | null)?.[MARK];
const isOurs = (key: unknown): key is string => typeof key === 'string' && key.startsWith(`${DOCUMENT}-`);

function enqueue(step: () => void | Promise<void>): void {
  queued += 1;
  queue = queue
    .then(step)
    .catch((error: unknown) => console.error('History step failed', error))
    .finally(() => {
      queued -= 1;
    });
}

/**
 * How long a back of this module's may take to land before the queue goes on without it: one that
 * never lands (the page going away meanwhile) must not hold every later navigation.
 */
const BACK_LANDS_WITHIN_MS = 3000;

/**
 * A page being left (`beforeunload`: an address typed, a reload, a link out) takes its history with
 * it, and a back of this module's then would cancel that navigation (the match overlay's timed close
 * did so to a page opened in its last moments): none is made for a while after it. Should the page
 * stay after all (a prompt answered Stay), an entry left behind goes with the next overlay closed or
 * the next page opened.
 */
const LEAVING_MS = 5000;
let leavingAt = Number.NEGATIVE_INFINITY;

/** One step back; whether it landed. */
function back(): Promise<boolean> {
  if (performance.now() - leavingAt < LEAVING_MS) return Promise.resolve(false);
  return new Promise((resolve) => {
    const landed = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      ownBacks.splice(ownBacks.indexOf(landed), 1);
      resolve(false);
    }, BACK_LANDS_WITHIN_MS);
    ownBacks.push(landed);
    window.history.back();
  });
}

/** Back over this document's overlay entries on top of the history, those of overlays still open too when `all`. */
async function backOverEntries(all: boolean) {
  for (let key = currentKey(); isOurs(key) && (all || !open.some((overlay) => overlay.key === key)); key = currentKey()) {
    if (!(await back())) return;
  }
}

function push(overlay: Overlay) {
  // The entry under it leaves the page where it is when a step back lands on it. Left to the browser,
  // the scroll it had when the overlay opened was put back late, on the page a sheet's action led to:
  // a long moderation queue, after a decision, opened part-way down, its heading out of sight.
  window.history.scrollRestoration = 'manual';
  window.history.pushState({ ...(window.history.state as object | null), [MARK]: overlay.key }, '');
}

function onPopState() {
  if (!currentKey()) window.history.scrollRestoration = 'auto';
  const own = ownBacks.shift();
  if (own) return own();
  // The user's back: the overlays above the entry it landed on close, the topmost first.
  const landed = open.findIndex((overlay) => overlay.key === currentKey());
  const closing = open.splice(landed + 1).reverse();
  const kept = closing.filter((overlay) => !overlay.onBack()).reverse();
  for (const overlay of kept) {
    open.push(overlay);
    push(overlay);
  }
}

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', onPopState);
  window.addEventListener('beforeunload', () => {
    leavingAt = performance.now();
  });
  // Loaded on an overlay's entry (a reload with a sheet open): the overlay went with the page before,
  // so its entries go too, or the user's next Back would seem to do nothing. They lie over an entry
  // of the same address.
  enqueue(async () => {
    while (currentKey() && (await back()));
  });
}

/**
 * While `active`, Back calls `onBack` (which closes the overlay, or answers false to stay open, as a
 * sheet does while its action runs) instead of leaving the page.
 */
export function useBackCloses(active: boolean, onBack: () => boolean) {
  const latest = useRef(onBack);
  useEffect(() => {
    latest.current = onBack;
  });
  useEffect(() => {
    if (!active) return;
    made += 1;
    const overlay: Overlay = { key: `${DOCUMENT}-${made}`, onBack: () => latest.current() };
    open.push(overlay);
    enqueue(() => {
      if (open.includes(overlay)) push(overlay);
    });
    return () => {
      const at = open.indexOf(overlay);
      if (at >= 0) open.splice(at, 1);
      enqueue(() => backOverEntries(false));
    };
  }, [active]);
}

/**
 * The routers' `aroundNav` (AppRoot's, EventPage's): the navigation as it would be with no overlay
 * open, made once the history is back under the overlays' entries; at once when there are none.
 */
export const afterOverlays: AroundNavHandler = (navigate, to, options) => {
  if (queued === 0 && !isOurs(currentKey())) return navigate(to, options);
  enqueue(async () => {
    await backOverEntries(true);
    navigate(to, options);
  });
};

/** Runs `step` once the changes to the history asked for before it are made (`afterOverlays`' navigation among them). */
const afterHistory = (step: () => void): void => enqueue(step);

/**
 * Once the navigation asked for is made and drawn, the keyboard's and the screen reader's place goes
 * on from the new page's heading (as a field's error takes it, lib/reveal-error.ts), not from <body>,
 * where what had it (a dialog, a button of the page left) dropped it.
 */
export function focusHeadingAfterNav(): void {
  afterHistory(() =>
    requestAnimationFrame(() => {
      const heading = document.querySelector<HTMLElement>('h1');
      if (!heading) return;
      heading.tabIndex = -1;
      heading.focus();
    }),
  );
}

/**
 * `history.back()` from the page, past any overlay's entry: where the user's Back would go with none
 * open. Its `popstate` is not waited for: there may be no step back (the app opened on this page).
 */
export function goBack(): void {
  enqueue(async () => {
    await backOverEntries(true);
    window.history.back();
  });
}
