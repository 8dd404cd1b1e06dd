/**
 * The first page (landing, login, sign-up) loads the files it needs and no more: its budget is
 * nearly spent (bench/client-bundle.ts). Its sign-in keeps the analytics event on the device
 * (client/lib/analytics-unsent.ts); the sending, and the reading of what is kept, are the signed-in
 * app's (client/lib/analytics.ts). The Google button's calls are its lazy chunk's (client/lib/google.ts).
 * This reads the built files themselves.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient, removeDir } from './helpers';

describe('the built first page', () => {
  let clientDir: string;
  const read = (file: string) => readFile(path.join(clientDir, file), 'utf8');

  beforeAll(async () => {
    clientDir = await buildClient();
  }, 180_000);
  afterAll(() => removeDir(clientDir));

  /** The scripts index.html loads up front, with those they import statically (not `import()`). */
  async function firstPageScripts(): Promise<Map<string, string>> {
    const html = await read('index.html');
    const next = [...html.matchAll(/<(?:script type="module"[^>]* src|link rel="modulepreload"[^>]* href)="\/([^"]+\.js)"/g)].map((match) => match[1]!);
    expect(next.length).toBeGreaterThan(0);
    const scripts = new Map<string, string>();
    for (let file = next.pop(); file !== undefined; file = next.pop()) {
      if (scripts.has(file)) continue;
      const code = await read(file);
      scripts.set(file, code);
      const dir = path.posix.dirname(file);
      for (const [, imported] of code.matchAll(/\b(?:from|import)\s*"\.\/([^"]+\.js)"/g)) next.push(path.posix.join(dir, imported!));
    }
    return scripts;
  }

  /** Whether a script holds the string literal, in whichever quotes the minifier wrote it. */
  const literal = (code: string, text: string) => ['"', "'", '`'].some((quote) => code.includes(`${quote}${text}`));
  /** The API's recorder called: its definition in api.ts, on the first page, is `recordEvent:`. */
  const callsRecorder = (code: string) => /\.recordEvent\(/.test(code);

  it('keeps the sign-in’s analytics event but sends none: the sender is the app’s', async () => {
    const scripts = [...(await firstPageScripts()).values()].join('\n');
    expect(literal(scripts, 'user_logged_in'), 'the sign-in’s event kept').toBe(true);
    expect(callsRecorder(scripts), 'the API’s recorder called').toBe(false);
    expect(literal(scripts, 'app_opened'), 'the app’s own events').toBe(false);
    // The markers hold: the app's files have them.
    const assets = (await readdir(path.join(clientDir, 'assets'))).filter((name) => name.endsWith('.js'));
    const all = await Promise.all(assets.map((name) => read(`assets/${name}`)));
    expect(all.some((code) => callsRecorder(code) && literal(code, 'app_opened'))).toBe(true);
  });

  it('leaves the Google sign-in’s calls and the server’s config to the chunks that make them', async () => {
    const scripts = [...(await firstPageScripts()).values()].join('\n');
    const elsewhere = ['https://www.googleapis.com/oauth2/v3/userinfo', '/api/auth/google/login/', '/api/config/'];
    expect(elsewhere.filter((path) => literal(scripts, path))).toEqual([]);
    // The login's own call is here: the markers are written as the build writes them.
    expect(literal(scripts, '/api/auth/')).toBe(true);
  });

  it('carries no hydration in react-dom: the page is rendered in the browser, never taken over from a server', async () => {
    const scripts = [...(await firstPageScripts()).values()].join('\n');
    /** Whether react-dom throws its numbered error here (`Error(x(299))`, as its production build writes them). */
    const throws = (code: number) => new RegExp(`\\bError\\([\\w$]+\\(${code}[,)]`).test(scripts);
    // A hydration that failed, recovered by rendering a boundary (#422) or the whole root (#423) afresh.
    expect([422, 423].filter(throws)).toEqual([]);
    // The marker holds: createRoot's own (a container that is not an element) is written the same way.
    expect(throws(299)).toBe(true);
  });

  it('leaves out of React the exports no module of the build uses', async () => {
    const scripts = [...(await firstPageScripts()).values()].join('\n');
    // The keys Children gives the elements it maps, `=` and `:` escaped: its own, in React.
    expect(scripts.includes('/[=:]/g'), 'React.Children’s keys').toBe(false);
    // A transition's first type, set by addTransitionType alone (react-dom only reads them).
    expect(scripts.includes('.types=['), 'React.addTransitionType').toBe(false);
    // React itself is here: its elements' mark.
    expect(literal(scripts, 'react.transitional.element')).toBe(true);
  });

  it('leaves out the scheduler’s exports that react-dom never calls', async () => {
    const scripts = [...(await firstPageScripts()).values()].join('\n');
    // The frame rate's setter, whose warning is its own.
    expect(scripts.includes('forceFrameRate takes a positive int'), 'unstable_forceFrameRate').toBe(false);
    // The scheduler itself is here: it runs its work loop from a MessageChannel's messages.
    expect(scripts.includes('new MessageChannel')).toBe(true);
  });
});
