import { createElement, use, type ReactNode } from 'react';
import { create } from 'zustand';
import { DEFAULT_LANGUAGE, type Language } from '../../shared/constants';
import type { MessageKey } from '../../shared/i18n/en';
import { esPublic } from '../../shared/i18n/es-public';
import { format, isolate, withoutDirectionControls, type MessageVars } from '../../shared/i18n/format';
import { ACCOUNT_LANGUAGE_KEY, chosenLanguage, getStoredLanguage, storeLanguage } from './storage';

type Messages = Partial<Record<MessageKey, string>>;
/** One part of the catalogue: how to fetch it in each language (a chunk per language). */
export type CatalogueLoaders = Record<Language, () => Promise<Messages>>;

/**
 * The messages this tab has loaded, per language. Each part of the catalogue is a chunk per
 * language, so a reader downloads only the language they read: the Spanish public part (the
 * default) ships with the first page, every other part is fetched by `loadMessages` (client/lib/messages-*.ts).
 */
const registry: Record<Language, Messages> = { en: {}, es: { ...esPublic } };
const publicPart: CatalogueLoaders = {
  en: () => import('../../shared/i18n/en-public').then((module) => module.enPublic),
  es: async () => esPublic,
};
/**
 * A load that says when it is done the way React's `use` reads it (`status`), so a component whose
 * copy is already there renders at once instead of suspending for a tick.
 */
type Load = Promise<void> & { status?: 'fulfilled' | 'rejected'; value?: undefined; reason?: unknown };
const done = (load: Load) => Object.assign(load, { status: 'fulfilled' as const, value: undefined });

/** Every part this tab uses, with each language's load (started at most once). */
const parts = new Map<CatalogueLoaders, Partial<Record<Language, Load>>>([[publicPart, { es: done(Promise.resolve()) }]]);

function loadIn(part: CatalogueLoaders, language: Language, again = false): Load {
  let loads = parts.get(part);
  if (!loads) parts.set(part, (loads = {}));
  // A switch of language asks again for a part whose load failed (no network, a new version that took
  // its chunk away). A render does not: `use` must be given the failure, or it would suspend on a new
  // load of the part each time the last one failed, fetching it again without end.
  if (again && loads[language]?.status === 'rejected') delete loads[language];
  const load: Load = (loads[language] ??= part[language]().then(
    (messages) => {
      Object.assign(registry[language], messages);
      done(load);
    },
    (error: unknown) => {
      Object.assign(load, { status: 'rejected', reason: error });
      throw error;
    },
  ));
  return load;
}

/**
 * A part of the catalogue (client/lib/messages-*.ts), its load started in the current language as
 * soon as the chunk that imports it runs; a language switch loads it in the new one before showing.
 */
export function loadMessages(part: CatalogueLoaders): CatalogueLoaders {
  loadIn(part, useLanguage.getState().language);
  return part;
}

/**
 * For the component that shows a part's copy: suspends (the nearest <Suspense> shows its fallback)
 * until the part is there in the current language, so a page never flashes its keys.
 */
export function useMessages(part: CatalogueLoaders) {
  use(loadIn(part, useLanguage((state) => state.language)) as Promise<void>);
}

interface LanguageState {
  language: Language;
  /**
   * The reader's choice, stored on the device (a switch). Resolves once every part this tab uses is
   * loaded in `language` and the page shows it.
   */
  setLanguage: (language: Language) => Promise<void>;
}

function applyToDocument(language: Language) {
  document.documentElement.lang = language;
}

let switches = 0;

/**
 * Shows `language`, storing nothing: once every part this tab uses is loaded in it, the page and
 * <html lang> switch.
 */
export async function showLanguage(language: Language): Promise<void> {
  // The last switch wins when a slow load of an earlier one finishes after it.
  const ticket = ++switches;
  await Promise.all([...parts.keys()].map((part) => loadIn(part, language, true)));
  if (ticket !== switches) return;
  applyToDocument(language);
  useLanguage.setState({ language });
}

/**
 * Spanish unless the visitor chose otherwise (localStorage.language_code), or, where they chose none,
 * their account speaks another (`followAccountLanguage`); <html lang> follows.
 */
export const useLanguage = create<LanguageState>()(() => ({
  language: getStoredLanguage(),
  setLanguage: async (language) => {
    storeLanguage(language);
    await showLanguage(language);
  },
}));

/**
 * The signed-in account's language, as the server says it: kept for the device's next opening, and
 * shown now unless a language was chosen on this device, which stays.
 */
export function followAccountLanguage(language: Language) {
  storeLanguage(language, ACCOUNT_LANGUAGE_KEY);
  if (!chosenLanguage() && language !== useLanguage.getState().language) showLanguage(language).catch(() => undefined);
}

/** Signed out: the account's language went with it (`clearStorage`), and the device's, or Spanish, shows. */
export function followDeviceLanguage() {
  const language = getStoredLanguage();
  if (language !== useLanguage.getState().language) showLanguage(language).catch(() => undefined);
}

/** The stored language, with its public copy; main.tsx renders once this resolves. */
export function initLanguage(): Promise<void> {
  switches += 1;
  const language = getStoredLanguage();
  useLanguage.setState({ language });
  applyToDocument(language);
  return Promise.all([...parts.keys()].map((part) => loadIn(part, language))).then(
    () => undefined,
    // An English reader's copy that did not come (no network, or a new version just out): the page
    // opens in Spanish, whose copy came with it, rather than blank for good; the choice stays stored
    // for the next opening, and a tap on EN asks for the copy again.
    () => {
      useLanguage.setState({ language: DEFAULT_LANGUAGE });
      applyToDocument(DEFAULT_LANGUAGE);
    },
  );
}

export type Translate = (key: MessageKey, vars?: MessageVars) => string;

function lookup(language: Language, key: MessageKey, vars?: MessageVars): string {
  // A key whose part is not loaded shows as the key itself: visible in review, never a crash.
  return format(registry[language][key] ?? key, vars);
}

/** The translate function for the current language; re-renders when it changes. */
export function useT(): Translate {
  const language = useLanguage((state) => state.language);
  return (key, vars) => lookup(language, key, vars);
}

/**
 * The translate function for copy that holds a person's text (a name, an event's name, a search):
 * each value in a <bdi>, so a name in Arabic or Hebrew, or one ending in "!" or digits, keeps its
 * direction to itself instead of reordering the words around it ("You and مريم 2 can chat now.").
 */
export function useTi(): TranslateIsolated {
  const language = useLanguage((state) => state.language);
  return (key, vars) => lookupIsolated(language, key, vars);
}

/** A letter written right to left: Hebrew, Arabic and the scripts near them, and their presentation forms. */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC]|[\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/**
 * A person's text for a sentence that holds text only (an attribute, a live region's words), not a
 * <bdi>: with right-to-left letters, in a Unicode isolate (FSI … PDI) instead, so that an Arabic or
 * Hebrew name, said or shown inside an English or Spanish sentence, keeps its direction (and its "!"
 * and digits) to itself there too. Any other value reads the same either way, and is left as it is:
 * the label a voice-control user says ("Like Marco") stays exactly the words shown.
 */
export const isolatedText = (value: string | number) => (RIGHT_TO_LEFT.test(String(value)) ? isolate(String(value)) : value);

/** `useTi` for an attribute (an aria-label, an alt): each value as `isolatedText` puts it. */
export function useTiText(): Translate {
  const language = useLanguage((state) => state.language);
  return (key, vars) => lookup(language, key, vars && Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, isolatedText(value)])));
}

export type TranslateIsolated = (key: MessageKey, vars: MessageVars) => ReactNode;

function lookupIsolated(language: Language, key: MessageKey, vars: MessageVars): ReactNode {
  const parts = (registry[language][key] ?? key).split(/\{(\w+)\}/);
  if (parts.length === 1) return parts[0];
  return parts.map((part, index) =>
    index % 2 === 0 ? part : part in vars ? createElement('bdi', { key: index }, withoutDirectionControls(String(vars[part]))) : `{${part}}`,
  );
}

/** The copy this tab has loaded in `language`: what a line said in it is found in (`translate-errors.ts`). */
export const loadedMessages = (language: Language): Messages => registry[language];

/** For code outside React (stores, toasts raised from actions). */
export const t: Translate = (key, vars) => lookup(useLanguage.getState().language, key, vars);

/** `useTi` outside React (a toast raised from a store). */
export const ti: TranslateIsolated = (key, vars) => lookupIsolated(useLanguage.getState().language, key, vars);
