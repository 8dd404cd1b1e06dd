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

export default defineConfig({
  root: 'client',
  plugins: [
    react(),
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
  build: { outDir: '../dist/client', emptyOutDir: true, modulePreload: { polyfill: false } },
  server: {
    proxy: {
      '/api': api,
      '/media': api,
      '/socket.io': { target: api, ws: true },
    },
  },
});
