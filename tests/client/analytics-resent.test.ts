// @vitest-environment jsdom
/**
 * An event whose answer was lost (sent, the connection dropped before the answer) goes again at the
 * next connect with the id it first went with, so that the server stores it once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const sent: Array<{ name: string; clientId: string; ageMs: number }> = [];
const answers: Array<() => Promise<null>> = [];
vi.mock('../../client/lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../client/lib/api')>();
  const recordEvent = async (name: string, clientId: string, ageMs: number) => {
    sent.push({ name, clientId, ageMs });
    return answers.shift()!();
  };
  return { ...actual, api: { ...actual.api, recordEvent } };
});

const { NetworkError } = await import('../../client/lib/api');
const { track, trackUnsent } = await import('../../client/lib/analytics');
const { setToken } = await import('../../client/lib/storage');

describe('an event sent again', () => {
  afterEach(() => {
    vi.useRealTimers();
    sent.length = 0;
    localStorage.clear();
  });

  it('goes with the id it first went with; another event with another', async () => {
    setToken('token-of-ana');
    answers.push(() => Promise.reject(new NetworkError(0, 'connection lost')));
    track('match_opened');
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    // Its failure seen.
    await new Promise((resolve) => setTimeout(resolve, 0));
    answers.push(async () => null, async () => null);
    trackUnsent();
    track('match_opened');
    await vi.waitFor(() => expect(sent).toHaveLength(3));
    expect(sent.map((each) => each.name)).toEqual(['match_opened', 'match_opened', 'match_opened']);
    expect(sent[0]!.clientId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sent[1]!.clientId).toBe(sent[0]!.clientId);
    expect(sent[2]!.clientId).not.toBe(sent[0]!.clientId);
  });

  it('says how long ago it happened, to count on that day: a minute before midnight stays that day', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-05T23:59:00Z'));
    setToken('token-of-ana');
    answers.push(() => Promise.reject(new NetworkError(0, 'offline')));
    track('message_sent');
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Back online 10 minutes later, the next day (UTC).
    vi.setSystemTime(new Date('2026-12-06T00:09:00Z'));
    answers.push(async () => null);
    trackUnsent();
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent.map((each) => each.ageMs)).toEqual([0, 600_000]);
  });
});
