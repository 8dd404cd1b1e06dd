import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 request written byte for byte on a socket: the path is not normalised (`/../`
 * stays) and header values may carry any bytes, which `fetch` refuses to send.
 */
export function rawRequest(
  baseUrl: string,
  /** A header given as null is not sent (a request with no Host). */
  request: { method?: string; path: string; headers?: Record<string, string | null>; body?: Buffer | string },
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const headers: Record<string, string | null> = { host: `${hostname}:${port}`, connection: 'close', ...request.headers };
  // `transfer-encoding: chunked` sends the body in chunks, its length unsaid.
  const chunked = headers['transfer-encoding'] === 'chunked';
  if (!chunked && (body.length > 0 || request.method === 'POST' || request.method === 'PUT')) headers['content-length'] = String(body.length);
  const lines = Object.entries(headers).flatMap(([name, value]) => (value === null ? [] : [`${name}: ${value}`]));
  const head = [`${request.method ?? 'GET'} ${request.path} HTTP/1.1`, ...lines];

  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    let failure: Error | null = null;
    // A server that refuses a request may reset the connection after answering: what it sent counts.
    socket.on('error', (error) => {
      failure = error;
    });
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      if (raw.indexOf('\r\n\r\n') < 0) {
        reject(failure ?? new Error('connection closed without a response'));
        return;
      }
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
      const responseHeaders: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        responseHeaders[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let responseBody = raw.subarray(split + 4);
      if (responseHeaders['transfer-encoding'] === 'chunked') responseBody = dechunk(responseBody);
      resolve({ status: Number(statusLine?.split(' ')[1]), headers: responseHeaders, body: responseBody.toString('utf8') });
    });
    socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), chunked ? inChunks(body) : body]));
  });
}

/** A body in chunked transfer encoding, 64 KB a chunk, and the last, empty one. */
function inChunks(body: Buffer) {
  const parts: Buffer[] = [];
  for (let start = 0; start < body.length; start += 65_536) {
    const chunk = body.subarray(start, start + 65_536);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
  return Buffer.concat(parts);
}

function dechunk(data: Buffer) {
  const parts: Buffer[] = [];
  let rest = data;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
}
