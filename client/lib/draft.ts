import { useState } from 'react';
import { knownUserId } from '../stores/session';
import { DRAFT_KEY, getToken, readDraft, writeJson } from './storage';

/**
 * The session a draft was typed in, by a mark of its token (the token itself is kept in one place
 * only). A tab the phone discarded, or a closed one opened again, heard neither a sign-out nor the next
 * user's sign-in made meanwhile in another tab: it opens in that session with the session storage it
 * had, whose drafts are not that session's to see.
 */
function sessionMark() {
  let mark = 0;
  for (const char of getToken() ?? '') mark = (mark * 31 + char.charCodeAt(0)) | 0;
  return mark;
}

/**
 * What was typed in a form so far, kept in this tab's session storage under `form`, so that a reload,
 * or the phone's discarding the tab while it was locked, gives it back: `draft`, as the form opened
 * (null: none, or another session's); `keep(value)` at each change, `keep(null)` once the form is sent.
 * A sign-in or sign-out drops them all (`dropDrafts`), but when the server ended the session: those
 * are kept for its user, and given back to them in their next session here, as the chat drafts are.
 * Never a password: the forms leave theirs out.
 */
export function useDraft<T>(form: string) {
  const key = DRAFT_KEY + form;
  // The session the form opened in: what is typed in it is that session's, whoever signs in meanwhile.
  const [session] = useState(sessionMark);
  const [draft] = useState(() => {
    const kept = readDraft<T>(key);
    return kept && (kept.session === session || (kept.user !== undefined && kept.user === knownUserId())) ? kept.value : null;
  });
  const keep = (value: T | null) => {
    // Signed out (the page on its way to the login page, and unmounting): what the session left is
    // the sign-out's to drop, or to keep for its user.
    // Storage refused (private mode, full): the form works as before, without a draft.
    if (sessionMark() === session) writeJson(key, value === null ? null : { session, user: knownUserId(), value }, true);
  };
  return { draft, keep };
}
