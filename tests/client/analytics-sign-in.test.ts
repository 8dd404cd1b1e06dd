// @vitest-environment jsdom
/**
 * The sign-in's event (`user_logged_in`) is kept on the device by the first page, which carries none
 * of the sending, and sent by the signed-in app at its first connect, once, with the sign-in's time.
 */
import { describe, expect, it, vi } from 'vitest';

const sent: Array<{ name: string; clientId: string; ageMs: number; token: string | null }> = [];
vi.mock('../../client/lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../client/lib/api')>();
  const { getToken } = await import('../../client/lib/storage');
  const recordEvent = async (name: string, clientId: string, ageMs: number) => {
    sent.push({ name, clientId, ageMs, token: getToken() });
    return null;
  };
  return { ...actual, api: { ...actual.api, recordEvent } };
});

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the sign-in’s analytics event', () => {
  it('is kept by the first page and sent by the app at its first connect, once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-05T12:00:00Z'));
    // Left by the last session: gone with the sign-in.
    localStorage.setItem('analytics_unsent', JSON.stringify([{ id: 'a', name: 'match_opened', at: Date.now(), session: 'x' }]));
    const { useSession } = await import('../../client/stores/session');
    useSession.getState().signIn('token-of-ana');
    await settled();
    expect(sent).toEqual([]);

    // The app opens two seconds later and connects.
    vi.setSystemTime(new Date('2026-12-05T12:00:02Z'));
    const { trackUnsent } = await import('../../client/lib/analytics');
    trackUnsent();
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ name: 'user_logged_in', ageMs: 2000, token: 'token-of-ana' });
    expect(sent[0]!.clientId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await settled();
    trackUnsent();
    await settled();
    expect(sent).toHaveLength(1);
    vi.useRealTimers();
  });
});
