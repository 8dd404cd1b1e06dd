import { useState } from 'react';
import { DRAFT_KEY } from './storage';

/**
 * What was typed in a form so far, kept in this tab's session storage under `form`, so that a reload,
 * or the phone's discarding the tab while it was locked, gives it back: `draft`, as the form opened
 * (null: none); `keep(value)` at each change, `keep(null)` once the form is sent. A sign-in or sign-out
 * drops them all (`dropDrafts`). Never a password: the forms leave theirs out.
 */
export function useDraft<T>(form: string) {
  const key = DRAFT_KEY + form;
  const [draft] = useState(() => {
    try {
      return JSON.parse(window.sessionStorage.getItem(key) ?? 'null') as T | null;
    } catch {
      return null;
    }
  });
  const keep = (value: T | null) => {
    try {
      if (value === null) window.sessionStorage.removeItem(key);
      else window.sessionStorage.setItem(key, JSON.stringify(value));
    } catch {
      // Storage refused (private mode, full): the form works as before, without a draft.
    }
  };
  return { draft, keep };
}
