// @vitest-environment jsdom
/**
 * A form's errors said again in another language need a script fetched at the first switch
 * (`translate-errors.ts`). One that could not be fetched (no network, a deploy that took the old
 * build's away) is fetched again the next time a switch needs it, instead of the same failure coming
 * back for the rest of the tab's life, every form's errors hidden at each switch. The module fails to
 * load while `gone` is set, as Chromium says a script it could not fetch.
 */
import { act, renderHook, waitFor } from '@testing-library/react';
import { beforeEach, expect, it, vi } from 'vitest';
import { useFieldErrors } from '../../client/lib/errors';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';

const script = vi.hoisted(() => ({ gone: true }));
vi.mock(import('../../client/lib/translate-errors'), async (original) => {
  if (script.gone) throw new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/translate-errors-x.js');
  return original();
});

beforeEach(async () => {
  localStorage.clear();
  await initLanguage();
});

it('fetches the translator again at the next switch that needs it after a failed fetch', async () => {
  const { result } = renderHook(() => useFieldErrors());
  act(() => result.current[1]({ username: [SERVER_MESSAGES.email_taken.es] }));

  // The first switch cannot fetch it: no line rather than one in the other language.
  await act(() => useLanguage.getState().setLanguage('en'));
  await act(async () => {});
  expect(result.current[0]).toEqual({});

  // Back in Spanish, its lines are there as they were said.
  await act(() => useLanguage.getState().setLanguage('es'));
  expect(result.current[0]).toEqual({ username: [SERVER_MESSAGES.email_taken.es] });

  // The script can be fetched now: the next switch says them in English.
  script.gone = false;
  await act(() => useLanguage.getState().setLanguage('en'));
  await waitFor(() => expect(result.current[0]).toEqual({ username: [SERVER_MESSAGES.email_taken.en] }));
});
