// @vitest-environment jsdom
/**
 * Analytics events that reached no server are kept on the device: a reload (or the tab closed and
 * opened again) sends them at the next connect, for the same session only, the newest 100 of the last
 * 7 days.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const sent: Array<{ name: string; clientId: string; ageMs: number; token: string | null }> = [];
const network = { up: false, throttled: false, refused: false };
vi.mock('../../client/lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../client/lib/api')>();
  const { getToken } = await import('../../client/lib/storage');
  const recordEvent = async (name: string, clientId: string, ageMs: number) => {
    if (!network.up) throw new actual.NetworkError(0, 'offline');
    if (network.throttled) throw new actual.Throttled(429, 'Request was throttled.');
    if (network.refused) throw new actual.ApiError(400, 'Invalid input.');
    sent.push({ name, clientId, ageMs, token: getToken() });
    return null;
  };
  return { ...actual, api: { ...actual.api, recordEvent } };
});

const { setToken } = await import('../../client/lib/storage');

/** The page as it is after a reload: the module's memory gone, local storage kept. */
async function loadPage() {
  vi.resetModules();
  return import('../../client/lib/analytics');
}

/** The failures of what was tracked seen. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('analytics events kept on the device', () => {
  afterEach(() => {
    vi.useRealTimers();
    network.up = false;
    network.throttled = false;
    network.refused = false;
    sent.length = 0;
    localStorage.clear();
  });

  it('go at the next connect after a reload, once each, with the ids and times they were made with', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-05T23:59:00Z'));
    setToken('token-of-ana');
    const before = await loadPage();
    before.track('match_opened');
    before.track('message_sent');
    await settled();
    expect(sent).toEqual([]);

    vi.setSystemTime(new Date('2026-12-06T00:04:00Z'));
    const after = await loadPage();
    network.up = true;
    after.trackUnsent();
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent.map(({ name, ageMs, token }) => ({ name, ageMs, token }))).toEqual([
      { name: 'match_opened', ageMs: 300_000, token: 'token-of-ana' },
      { name: 'message_sent', ageMs: 300_000, token: 'token-of-ana' },
    ]);
    expect(sent[0]!.clientId).not.toBe(sent[1]!.clientId);
    // Answered: gone from the device, not sent again at the next connect.
    await settled();
    (await loadPage()).trackUnsent();
    await settled();
    expect(sent).toHaveLength(2);
  });

  it('never go with another session’s token', async () => {
    setToken('token-of-ana');
    (await loadPage()).track('match_opened');
    await settled();
    // Another account signed in on this device, the key left behind (another tab's sign-in racing).
    setToken('token-of-ben');
    network.up = true;
    const page = await loadPage();
    page.trackUnsent();
    await settled();
    expect(sent).toEqual([]);
    setToken('token-of-ana');
    page.trackUnsent();
    await settled();
    expect(sent).toEqual([]);
  });

  it('are the newest 100, of the last 7 days', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-01T12:00:00Z'));
    setToken('token-of-ana');
    let page = await loadPage();
    page.track('app_opened');
    vi.setSystemTime(new Date('2026-12-05T12:00:00Z'));
    for (let i = 0; i < 120; i++) page.track('message_sent');
    page.track('match_opened');
    await settled();

    // Eight days after the first: it is too old to count.
    vi.setSystemTime(new Date('2026-12-09T12:00:01Z'));
    page = await loadPage();
    network.up = true;
    page.trackUnsent();
    await vi.waitFor(() => expect(sent).toHaveLength(100));
    expect(sent.filter((each) => each.name === 'app_opened')).toEqual([]);
    expect(sent.at(-1)!.name).toBe('match_opened');
    expect(new Set(sent.map((each) => each.ageMs))).toEqual(new Set([4 * 86_400_000 + 1000]));
  });

  it('keep one the server throttled (a limit for now) for the next connect; not one it refused', async () => {
    setToken('token-of-ana');
    network.up = true;
    network.throttled = true;
    const page = await loadPage();
    page.track('message_sent');
    await settled();
    network.throttled = false;
    network.refused = true;
    page.track('match_opened');
    await settled();
    network.refused = false;
    page.trackUnsent();
    await vi.waitFor(() => expect(sent.map((each) => each.name)).toEqual(['message_sent']));
    await settled();
    expect(sent).toHaveLength(1);
  });

  it('go with the new token of the same account after a password change', async () => {
    setToken('token-of-ana');
    (await loadPage()).track('match_opened');
    await settled();
    vi.resetModules();
    const { useSession } = await import('../../client/stores/session');
    const { trackUnsent } = await import('../../client/lib/analytics');
    useSession.getState().replaceToken('new-token-of-ana');
    network.up = true;
    trackUnsent();
    await vi.waitFor(() => expect(sent.map(({ name, token }) => [name, token])).toEqual([['match_opened', 'new-token-of-ana']]));
  });
});
