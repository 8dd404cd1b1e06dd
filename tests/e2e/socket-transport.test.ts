/**
 * The built client's socket is WebSocket alone: the build (vite.config.ts, `websocketOnly`) leaves
 * engine.io-client's other transports out of the app's files. That the socket still works is what
 * every browser suite's live chat, overlay and count shows; this reads the files themselves.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient, removeDir } from './helpers';

describe('the built client’s socket transports', () => {
  let clientDir: string;
  let scripts: string[];

  beforeAll(async () => {
    clientDir = await buildClient();
    const assets = path.join(clientDir, 'assets');
    const names = (await readdir(assets)).filter((name) => name.endsWith('.js'));
    scripts = await Promise.all(names.map((name) => readFile(path.join(assets, name), 'utf8')));
  }, 180_000);
  afterAll(() => removeDir(clientDir));

  it('holds the WebSocket transport and neither long-polling nor WebTransport', () => {
    const holds = (pattern: RegExp) => scripts.some((script) => pattern.test(script));
    // Only the WebSocket transport's module looks for the browser's socket under this old name too.
    expect(holds(/MozWebSocket/), 'the WebSocket transport').toBe(true);
    // Long-polling over XHR reports its failures with these words; WebTransport opens the browser's own.
    expect(holds(/xhr poll error/), 'long-polling over XHR').toBe(false);
    expect(holds(/new WebTransport\(/), 'WebTransport').toBe(false);
  });
});
