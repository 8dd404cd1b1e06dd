// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';

const recorded: Array<{ token: string | null; name: string }> = [];
vi.mock('../../client/lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../client/lib/api')>();
  const { getToken } = await import('../../client/lib/storage');
  return { ...actual, api: { ...actual.api, recordEvent: async (name: string) => void recorded.push({ token: getToken(), name }) } };
});

const { trackOnce } = await import('../../client/lib/analytics');
const { setToken } = await import('../../client/lib/storage');

describe('an event recorded once per page load', () => {
  it('is recorded once for each person signed in on the page: signing out and in as another counts again', () => {
    setToken('token-of-ana');
    trackOnce('app_opened', 'app_opened:2026-12-05');
    trackOnce('app_opened', 'app_opened:2026-12-05');
    window.localStorage.clear();
    setToken('token-of-ben');
    trackOnce('app_opened', 'app_opened:2026-12-05');
    expect(recorded).toEqual([
      { token: 'token-of-ana', name: 'app_opened' },
      { token: 'token-of-ben', name: 'app_opened' },
    ]);
  });
});
