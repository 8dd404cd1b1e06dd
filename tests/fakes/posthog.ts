/**
 * A local fake of PostHog's capture API (`POST /batch/`, gzip or plain JSON), for the real
 * posthog-node SDK pointed at it through POSTHOG_HOST. It records every event it is sent.
 */
import { gunzipSync } from 'node:zlib';
import { type FakeServer, startFakeServer } from './http';

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
}

export async function startFakePostHog(): Promise<FakePostHog> {
  const events: CapturedEvent[] = [];
  const apiKeys: string[] = [];
  const server = await startFakeServer((request) => {
    if (request.method !== 'POST' || request.path !== '/batch/') return { status: 404, body: { error: 'not found' } };
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
  return { ...server, events, apiKeys };
}
