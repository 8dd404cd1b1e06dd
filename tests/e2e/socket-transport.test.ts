/**
 * The built client's socket is WebSocket alone: the build (vite.config.ts, `websocketOnly`) leaves
 * engine.io-client's other transports out of the app's files. That the socket still works is what
 * every browser suite's live chat, overlay and count shows; this reads the files themselves. So too
 * for the parsers, which keep their text packets alone (`socketTextOnly`), and for the drags' library,
 * whose Babel helpers are plain copies and assignments (`gestureHelpersPlain`): that the deck's drags
 * still work is what the journey suite's drag shows.
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

  it('sends its packets as they are, uncounted (`websocketOnly`)', () => {
    const holds = (pattern: RegExp) => scripts.some((script) => pattern.test(script));
    expect(holds(/_getWritablePackets\(\)\{return this\.writeBuffer\}/), 'the packets as they are').toBe(true);
  });

  it('opens its WebSocket without Node’s options (`websocketOnly`)', () => {
    const holds = (pattern: RegExp) => scripts.some((script) => pattern.test(script));
    // Named nowhere else: the TLS options engine.io-client picks for Node's `ws` package.
    expect(holds(/checkServerIdentity/), 'Node’s options').toBe(false);
  });

  it('parses text packets alone, with no binary attachments or base64 packets (`socketTextOnly`)', () => {
    const holds = (pattern: RegExp) => scripts.some((script) => pattern.test(script));
    // socket.io-parser's text decoding, which stays, and its binary paths' own words, which go.
    expect(holds(/unknown packet type /), 'the text decoder').toBe(true);
    expect(holds(/got binary data when not reconstructing a packet/), 'binary attachments').toBe(false);
    expect(holds(/Illegal attachments/), 'a binary event’s count of attachments').toBe(false);
    expect(holds(/_placeholder/), 'the placeholders of attachments').toBe(false);
    // engine.io-parser's base64 packets: their alphabet, and the reader that writes them.
    expect(holds(/ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\+\//), 'base64 packets').toBe(false);
    expect(holds(/readAsDataURL/), 'binary sent as base64').toBe(false);
  });

  it('copies the drags’ options and states plainly, without Babel’s descriptor helpers (`gestureHelpersPlain`)', () => {
    const holds = (pattern: RegExp) => scripts.some((script) => pattern.test(script));
    // The drag's engine, which stays (its flag in the shared state), and the helpers' own words, which go.
    expect(holds(/`dragging`|"dragging"|'dragging'/), 'the drag’s engine').toBe(true);
    expect(holds(/@@toPrimitive must return a primitive value/), 'Babel’s _toPrimitive').toBe(false);
    expect(holds(/getOwnPropertyDescriptors/), 'Babel’s _objectSpread2').toBe(false);
  });
});
