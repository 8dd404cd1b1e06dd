// @vitest-environment jsdom
/**
 * The Google button's place on the login page: on a device that has read the server's configuration
 * before, it is there from the first paint, not added once the configuration answers (which pushes the
 * form down under a finger about to tap it: seconds later on a party's network).
 */
import { act, render, screen, waitFor } from '@testing-library/react';
import { Router } from 'wouter';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { en } from '../../shared/i18n/en';
import { inEnglishPages } from '../helpers/english-pages';

const CLIENT_ID = 'test-client.apps.googleusercontent.com';
/** Answers GET /api/config/ when the test says, once asked. */
let answerConfig: ((googleClientId: string | null) => void) | null = null;

inEnglishPages();
beforeEach(() => {
  // GET /api/config/ held until the test answers it.
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) =>
      String(url).endsWith('/api/config/')
        ? new Promise<Response>((resolve) => {
            answerConfig = (googleClientId) => resolve(Response.json({ google_client_id: googleClientId, payments: 'off', lookup_keys: { monthly: 'm', yearly: 'y' } }));
          })
        : Response.json({}),
    ),
  );
});

/** The login page, as a fresh page load renders it (the configuration not read yet). */
async function openLogin() {
  vi.resetModules();
  answerConfig = null;
  await (await import('../../client/lib/i18n')).initLanguage();
  const { Login } = await import('../../client/pages/Login');
  const { useConfig } = await import('../../client/stores/config');
  render(
    <Router>
      <Login />
    </Router>,
  );
  return useConfig;
}

const googleButton = () => screen.queryByRole('button', { name: en['login.google'] });

/** Answers the page's GET /api/config/, once it has asked. */
async function configAnswers(googleClientId: string | null, useConfig: { getState(): { config: unknown } }) {
  // Asked once the button's code has come (testing-library's wait lets React render meanwhile).
  await waitFor(() => expect(answerConfig).not.toBeNull());
  await act(async () => {
    answerConfig!(googleClientId);
    await vi.waitFor(() => expect(useConfig.getState().config).not.toBeNull());
  });
}

describe('the Google button on the login page', () => {
  it('is in its place from the first paint where the device read the client id before, and goes if the server has none now', async () => {
    localStorage.setItem('google_client_id', CLIENT_ID);
    const useConfig = await openLogin();
    // Before the button's code has come: its place, held by its label unseen.
    expect(screen.getByText(en['login.google']).closest('[aria-hidden="true"]')).not.toBeNull();
    // Its code come, the configuration not: the button.
    expect(await screen.findByRole('button', { name: en['login.google'] })).not.toBeNull();

    await configAnswers(null, useConfig);
    expect(googleButton()).toBeNull();
    expect(localStorage.getItem('google_client_id')).toBeNull();
  });

  it('comes with the configuration on a first visit, and is kept for the next, through a sign-out too', async () => {
    const useConfig = await openLogin();
    expect(screen.queryByText(en['login.google'])).toBeNull();

    await configAnswers(CLIENT_ID, useConfig);
    expect(googleButton()).not.toBeNull();
    const { clearStorage } = await import('../../client/lib/storage');
    clearStorage({ deleted: true });
    expect(localStorage.getItem('google_client_id')).toBe(CLIENT_ID);
  });
});
