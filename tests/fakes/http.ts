import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  /** Query string as flat `key → value`, brackets kept (`lookup_keys[0]`), as Stripe's SDK encodes it. */
  query: Record<string, string>;
  /** A form-encoded body, flat in the same way; empty for other bodies. */
  form: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The body's bytes, as sent (possibly compressed). */
  body: Buffer;
  /** Aborted when the client hangs up before it is answered (its own timeout, say). */
  abandoned: AbortSignal;
}

export type FakeHandler = (
  request: RecordedRequest,
) => { status: number; body: unknown; headers?: Record<string, string> } | Promise<{ status: number; body: unknown; headers?: Record<string, string> }>;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const flat = (params: URLSearchParams) => Object.fromEntries(params.entries());

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A tiny JSON HTTP server on a free local port that records every request it answers. */
export async function startFakeServer(handle: FakeHandler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const body = await readBody(req);
    const abandoned = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abandoned.abort();
    });
    const text = body.toString('utf8');
    const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: flat(url.searchParams),
      form: isForm ? flat(new URLSearchParams(text)) : {},
      headers: req.headers,
      body,
      abandoned: abandoned.signal,
    };
    requests.push(recorded);
    try {
      const answer = await handle(recorded);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      // A Buffer goes as it is (an answer that is not JSON); anything else as JSON.
      res.end(Buffer.isBuffer(answer.body) ? answer.body : JSON.stringify(answer.body));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
