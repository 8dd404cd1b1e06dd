import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const api = 'http://127.0.0.1:3000';
const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * Writes .br and .gz beside every text asset; the server's static plugin serves them
 * (@fastify/static `preCompressed`), so phones on event Wi-Fi download a third of the bytes.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((name) => /\.(js|css|html|svg|json)$/.test(name));
      await Promise.all(
        files.map(async (name) => {
          const file = path.join(outDir, name);
          const source = await readFile(file);
          if (source.length < 1024) return;
          await writeFile(`${file}.br`, await brotli(source, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }));
          await writeFile(`${file}.gz`, await gz(source, { level: 9 }));
        }),
      );
    },
  };
}

/**
 * The app's socket speaks WebSocket alone (client/lib/socket.ts), but engine.io-client's Socket imports
 * every transport it knows, long-polling over XHR and WebTransport too, to find them by name. In the
 * browser build its table of transports holds WebSocket only, and the others are left out of the app's
 * chunk; the tests' and the load tool's Node clients use the package as it is.
 */
function websocketOnly(): Plugin {
  return {
    name: 'engine.io-websocket-only',
    apply: 'build',
    async load(id) {
      const file = id.match(/engine\.io-client[\\/]build[\\/]esm[\\/](.+)\.js$/)?.[1]?.replace(/\\/g, '/');
      if (file === 'transports/index') return 'import { WS } from "./websocket.js";\nexport const transports = { websocket: WS };\n';
      // The package's entry still names the others (socket.io-client passes them on): kept only if used.
      // XHR's module listens for pagehide, at load, to abort its own requests, of which there are none.
      if (file && /^(transports\/(polling.*|webtransport)|contrib\/has-cors)$/.test(file)) {
        return { code: await readFile(id, 'utf8'), moduleSideEffects: false };
      }
    },
  };
}

/**
 * Everything the first page loads in one file. Left alone, the bundler put each module the entry
 * shares with a lazy page (React, zustand, the copy's loader, the API client) in a chunk of its own:
 * five files where one would do, each compressed alone. Captured by one group, they join the entry
 * chunk, ~1.9 KB (gzip) less for the landing page and ~3 KB for the app; the lazy pages import them
 * from it.
 */
const firstLoad = {
  name: 'index',
  tags: ['$initial' as const],
};

/**
 * The signed-in app's pages that are not on the way from sign-up to the deck and the chat (settings,
 * the likes and safety lists, the organizer's screens) share one lazy chunk instead of a small one
 * each. The service worker stores every chunk once the app has opened, so a phone downloads them all
 * anyway: one file, compressed as one, is ~5 KB (gzip) less than the ten it replaces. Only their own
 * modules, named here (with the organizer's store and the settings' copy, which only they use): a
 * module the public event page also uses (EventSummary) would make a guest's page fetch the whole
 * group.
 */
const secondaryPages = {
  name: 'app-more',
  test: /client[\\/](pages[\\/](app[\\/](Settings|Likes|Blocked|EndedChats)|events[\\/](Events|NewEvent|EditEvent|HostScreen|EventForm))\.tsx|stores[\\/]host\.ts|lib[\\/]messages-settings\.ts)$/,
};

export default defineConfig({
  root: 'client',
  plugins: [
    react(),
    websocketOnly(),
    precompress(),
    // The service worker (client/sw/sw.ts), built with the list of this build's files to store; the
    // signed-in app registers it itself (client/lib/service-worker.ts) and has its own manifest
    // (client/public).
    VitePWA({
      strategies: 'injectManifest',
      srcDir: path.resolve(import.meta.dirname, 'client/sw'),
      filename: 'sw.ts',
      injectRegister: false,
      manifest: false,
      injectManifest: { globPatterns: ['**/*.{js,css,html,ico,png,webmanifest}'], rollupFormat: 'iife' },
      // The worker's own build says only what goes wrong; the app's build reports the sizes.
      integration: { configureCustomSWViteBuild: (config) => void (config.logLevel = 'warn') },
    }),
  ],
  resolve: {
    alias: [{ find: 'use-sync-external-store/shim/index.js', replacement: path.resolve(import.meta.dirname, 'client/lib/use-sync-external-store.ts') }],
  },
  build: {
    outDir: '../dist/client',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    // Hex file hashes: the entry names every lazy chunk and stylesheet it may load, and hex (8 characters,
    // 32 bits) compresses better than base64 there; a collision between two versions of one chunk stays
    // out of reach.
    rolldownOptions: { output: { hashCharacters: 'hex', codeSplitting: { includeDependenciesRecursively: false, groups: [firstLoad, secondaryPages] } } },
  },
  server: {
    proxy: {
      '/api': api,
      '/media': api,
      '/socket.io': { target: api, ws: true },
    },
  },
});
