/**
 * A local fake of PostHog: its capture API (`POST /batch/`, gzip or plain JSON), for the real
 * posthog-node SDK pointed at it through POSTHOG_HOST, which records every event it is sent; and its
 * private API's person deletion (`POST /api/projects/{project_id}/persons/bulk_delete/`, a personal API
 * key as a bearer token), which deletes the persons of the distinct ids named, and their events with
 * `delete_events`, as PostHog does (there later, in a batch; here at once).
 */
import { gunzipSync } from 'node:zlib';
import { type FakeServer, type RecordedRequest, startFakeServer } from './http';

export interface CapturedEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  /** The whole event as sent, to check what else travelled with it. */
  raw: Record<string, unknown>;
}

export interface FakePostHog extends FakeServer {
  events: CapturedEvent[];
  /** The API keys the batches were sent with. */
  apiKeys: string[];
  /** The distinct ids whose persons were deleted. */
  deleted: string[];
  /** The personal API key and project the private API accepts. */
  personalApiKey: string;
  projectId: string;
  /**
   * How its person deletion answers (settable): `up` as PostHog does, `down` a 503 (an outage),
   * `hanging` never (a PostHog too slow to wait for).
   */
  personApi: { state: 'up' | 'down' | 'hanging' };
  /**
   * How its capture API takes a batch (settable): `up` at once; `holding` keeps each one on its way, as
   * a slow network would, in `held` until `release()`.
   */
  capture: { state: 'up' | 'holding' };
  held: RecordedRequest[];
  /**
   * Lets the batches held arrive, and the next ones at once. One its sender gave up on meanwhile (its
   * timeout) never arrives: it is not taken in, as PostHog never had it whole.
   */
  release(): void;
  /** The app's `posthog` config pointed at this fake, capture and erasure both. */
  appConfig: { key: string; host: string; sendTimeoutMs: number; erasure: { personalApiKey: string; projectId: string; apiHost: string } };
}

/** The project API key the app is given in tests: every batch it sends carries it. */
export const FAKE_POSTHOG_KEY = 'phc_test_eventmatch';

/**
 * How long the app's batches may take to this local fake (not the 10 s a real PostHog gets): a deleted
 * account's erasure waits twice this, which the tests that see one happen wait for.
 */
const FAKE_SEND_TIMEOUT_MS = 1_000;

const BULK_DELETE = /^\/api\/projects\/([^/]+)\/persons\/bulk_delete\/$/;

export async function startFakePostHog(): Promise<FakePostHog> {
  const events: CapturedEvent[] = [];
  const apiKeys: string[] = [];
  const deleted: string[] = [];
  const personalApiKey = 'phx_test_personal_key';
  const projectId = '4242';
  const personApi: FakePostHog['personApi'] = { state: 'up' };
  const capture: FakePostHog['capture'] = { state: 'up' };
  const held: RecordedRequest[] = [];
  const arrivals: Array<() => void> = [];
  const release = () => {
    capture.state = 'up';
    held.length = 0;
    for (const arrive of arrivals.splice(0)) arrive();
  };
  const server = await startFakeServer(async (request) => {
    const bulkDelete = BULK_DELETE.exec(request.path);
    if (request.method === 'POST' && bulkDelete) {
      if (personApi.state === 'down') return { status: 503, body: { detail: 'Service unavailable.' } };
      if (personApi.state === 'hanging') return new Promise<never>(() => {});
      // PostHog's answers: a missing or wrong personal key is 401, another project 404, no ids 400.
      if (request.headers.authorization !== `Bearer ${personalApiKey}`) {
        return { status: 401, body: { type: 'authentication_error', code: 'authentication_failed', detail: 'Personal API key is invalid.' } };
      }
      if (bulkDelete[1] !== projectId) return { status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.' } };
      const body = JSON.parse(request.body.toString('utf8') || '{}') as { distinct_ids?: unknown; delete_events?: unknown };
      const ids = Array.isArray(body.distinct_ids) ? body.distinct_ids.map(String) : [];
      if (ids.length === 0 || ids.length > 1000) {
        return { status: 400, body: { type: 'validation_error', code: 'invalid_input', detail: 'You need to specify either distinct_ids or ids' } };
      }
      const found = ids.filter((id) => events.some((event) => event.distinct_id === id));
      deleted.push(...found);
      if (body.delete_events) {
        for (let i = events.length - 1; i >= 0; i--) if (ids.includes(events[i]!.distinct_id)) events.splice(i, 1);
      }
      return { status: 202, body: { persons_found: found.length, persons_deleted: found.length } };
    }
    if (request.method !== 'POST' || request.path !== '/batch/') return { status: 404, body: { error: 'not found' } };
    if (capture.state === 'holding') {
      held.push(request);
      await new Promise<void>((arrive) => arrivals.push(arrive));
      if (request.abandoned.aborted) return { status: 408, body: { error: 'abandoned on the way' } };
    }
    const bytes = request.headers['content-encoding'] === 'gzip' ? gunzipSync(request.body) : request.body;
    const payload = JSON.parse(bytes.toString('utf8')) as { api_key: string; batch: Array<Record<string, unknown>> };
    apiKeys.push(payload.api_key);
    for (const raw of payload.batch) {
      events.push({
        event: String(raw.event),
        distinct_id: String(raw.distinct_id),
        properties: (raw.properties ?? {}) as Record<string, unknown>,
        raw,
      });
    }
    return { status: 200, body: { status: 1 } };
  });
  const appConfig = { key: FAKE_POSTHOG_KEY, host: server.url, sendTimeoutMs: FAKE_SEND_TIMEOUT_MS, erasure: { personalApiKey, projectId, apiHost: server.url } };
  return { ...server, events, apiKeys, deleted, personalApiKey, projectId, personApi, capture, held, release, appConfig };
}
