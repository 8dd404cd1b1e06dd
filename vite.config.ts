import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, minifySync, type Plugin } from 'vite';
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
      // A transport is probed only to upgrade to it from another one, and the socket has one: the
      // Socket's probing (~0.27 KB gzip) never runs. The build fails if the method is not found.
      if (file === 'socket') {
        const code = await readFile(id, 'utf8');
        const trimmed = code.replace(/\n {4}_probe\(name\) \{\n[\s\S]*?\n {4}\}\n(?= {4}\/\*\*\n {5}\* Called when connection is deemed open\.)/, '\n    _probe() {}\n');
        if (trimmed === code) throw new Error(`${id}: no _probe method where expected, see vite.config.ts`);
        // A long-polling request's packets are counted against the server's limit before they go; a
        // WebSocket's go as they are: the count and its UTF-8 length (~0.2 KB gzip) never run either.
        const writable = trimmed.replace(/\n {4}_getWritablePackets\(\) \{\n[\s\S]*?\n {4}\}\n/, '\n    _getWritablePackets() {\n        return this.writeBuffer;\n    }\n');
        if (writable === trimmed) throw new Error(`${id}: no _getWritablePackets method where expected, see vite.config.ts`);
        return writable;
      }
      // The WebSocket transport picks Node's options (an agent, TLS keys) for the `ws` package, which a
      // browser's WebSocket never takes: only React Native's is given options, and it gets none of those
      // (~0.1 KB gzip with the helper that picks them).
      if (file === 'transports/websocket') {
        const code = await readFile(id, 'utf8');
        const trimmed = code.replace(/\? \{\}\n {12}: pick\(this\.opts, "agent", [^)]*\);/, '? {}\n            : {};');
        if (trimmed === code) throw new Error(`${id}: no pick of Node's options where expected, see vite.config.ts`);
        return trimmed;
      }
      // The package's entry still names the others (socket.io-client passes them on): kept only if used.
      // XHR's module listens for pagehide, at load, to abort its own requests, of which there are none.
      if (file && /^(transports\/(polling.*|webtransport)|contrib\/has-cors)$/.test(file)) {
        return { code: await readFile(id, 'utf8'), moduleSideEffects: false };
      }
    },
  };
}

/**
 * socket.io-client's Socket keeps listeners for every event in and out (`onAny`, `onAnyOutgoing`
 * and their `prepend`, `off` and `listeners` kin); the app listens by name only (client/lib/socket.ts).
 * The build leaves those eight methods out, ~0.14 KB (gzip), and stops if a client module names one:
 * it would be undefined in the built app alone. The build fails too if the package no longer reads
 * as expected.
 */
const anyListenerMethods = ['onAny', 'prependAny', 'offAny', 'listenersAny', 'onAnyOutgoing', 'prependAnyOutgoing', 'offAnyOutgoing', 'listenersAnyOutgoing'];
function socketWithoutAnyListeners(): Plugin {
  return {
    name: 'socket.io-without-any-listeners',
    apply: 'build',
    async load(id) {
      if (!/socket\.io-client[\\/]build[\\/]esm[\\/]socket\.js$/.test(id)) return;
      let code = await readFile(id, 'utf8');
      for (const name of anyListenerMethods) {
        const trimmed = code.replace(new RegExp(`\\n {4}${name}\\([^)]*\\) \\{\\n[\\s\\S]*?\\n {4}\\}\\n`), '\n');
        if (trimmed === code) throw new Error(`${id}: no method ${name} where expected, see vite.config.ts`);
        code = trimmed;
      }
      return code;
    },
    transform(code, id) {
      if (!/[\\/]client[\\/].+\.tsx?$/.test(id)) return;
      const named = anyListenerMethods.find((name) => new RegExp(`\\.${name}\\b`).test(code));
      if (named) throw new Error(`${id}: .${named} is left out of socket.io-client's build, see vite.config.ts`);
    },
  };
}

/**
 * socket.io and engine.io carry binary data too (an ArrayBuffer, a Blob or a typed array anywhere in an
 * event's arguments: sent as attachments after the event, or base64 where a transport cannot). The app
 * sends none and receives none: every event either way is JSON (shared/events.ts types them all), and
 * the server has no emit of its own outside them. In the browser build the packages' parsers keep their
 * text path alone: socket.io-parser without its search for binary, its attachments and its
 * reconstruction of them, engine.io-parser without its binary and base64 packets, ~1.4 KB (gzip). A
 * binary frame from the server would throw in the built app alone; an emit of binary from it would go
 * as JSON. The build fails if a package no longer reads as expected. The tests' Node clients and the
 * server use the packages as they are.
 */
const textOnlyCuts: Record<string, Array<[RegExp, string]>> = {
  'socket.io-parser/build/esm/index.js': [
    [/\nimport \{ deconstructPacket, reconstructPacket \} from "\.\/binary\.js";\nimport \{ isBinary, hasBinary \} from "\.\/is-binary\.js";\n/, '\n'],
    [/\n {8}if \(obj\.type === PacketType\.EVENT \|\| obj\.type === PacketType\.ACK\) \{\n {12}if \(hasBinary\(obj\)\) \{[\s\S]*?\n {12}\}\n {8}\}\n/, '\n'],
    [/\n {8}\/\/ attachments if we have them\n[\s\S]*?\n {8}\}\n/, '\n'],
    [/\n {4}\/\*\*\n {5}\* Encode packet as 'buffer sequence'[\s\S]*?\n {4}encodeAsBinary\(obj\) \{[\s\S]*?\n {4}\}\n/, '\n'],
    [/\n {12}if \(this\.reconstructor\) \{\n[\s\S]*?\n {12}(packet = this\.decodeString\(obj\);)\n[\s\S]*?\n {12}else \{\n {16}\/\/ non-binary full packet\n {16}(super\.emitReserved\("decoded", packet\);)\n {12}\}\n {8}\}\n {8}else if \(isBinary\(obj\) \|\| obj\.base64\) \{[\s\S]*?\n {8}\}\n {8}else \{/, '\n            $1\n            $2\n        }\n        else {'],
    [/\n {8}\/\/ look up attachments if type binary\n[\s\S]*?\n {8}\}\n(?= {8}\/\/ look up namespace)/, '\n'],
    [/\n {4}destroy\(\) \{\n[\s\S]*?\n {4}\}\n/, '\n    destroy() { }\n'],
    [/\n\/\*\*\n \* A manager of a binary event's 'buffer sequence'[\s\S]*?\nclass BinaryReconstructor \{[\s\S]*?\n\}\n/, '\n'],
  ],
  'engine.io-parser/build/esm/encodePacket.browser.js': [
    [/\n {4}if \(withNativeBlob && data instanceof Blob\) \{[\s\S]*?\n {4}\}\n(?= {4}\/\/ plain string)/, '\n'],
    // Read at load but only by the binary paths: without the call it is left out too.
    [/(\nconst withNativeBlob = typeof Blob === "function")( \|\|\n {4}\(typeof Blob !== "undefined" &&\n {8}Object\.prototype\.toString\.call\(Blob\) === "\[object BlobConstructor\]"\));/, '$1;'],
  ],
  'engine.io-parser/build/esm/decodePacket.browser.js': [
    [/\nimport \{ decode \} from "\.\/contrib\/base64-arraybuffer\.js";\n/, '\n'],
    [/\n {4}if \(typeof encodedPacket !== "string"\) \{[\s\S]*?\n {4}\}\n/, '\n'],
    [/\n {4}if \(type === "b"\) \{[\s\S]*?\n {4}\}\n/, '\n'],
    [/\nconst decodeBase64Packet = [\s\S]*?\n\};\n/, '\n'],
  ],
};
function socketTextOnly(): Plugin {
  return {
    name: 'socket.io-text-only',
    apply: 'build',
    transform(code, id) {
      const file = Object.keys(textOnlyCuts).find((name) => id.replace(/\\/g, '/').endsWith(`/node_modules/${name}`));
      if (!file) return;
      let trimmed = code;
      for (const [pattern, replacement] of textOnlyCuts[file]!) {
        const next = trimmed.replace(pattern, replacement);
        if (next === trimmed) throw new Error(`${id}: ${pattern} not found, see vite.config.ts`);
        trimmed = next;
      }
      return trimmed;
    },
  };
}

/**
 * linkify-it's matcher carries methods the app never calls: its chat finds links with `match` alone
 * (client/lib/links.ts). The build leaves `set`, `pretest`, `matchAtStart` and `tlds` out, ~0.2 KB
 * (gzip), and stops if the module that uses the package names one (it would be undefined in the built
 * app alone), or if the package no longer reads as expected.
 */
const linkifyUnusedMethods = ['set', 'pretest', 'matchAtStart', 'tlds'];
function linkifyMatchOnly(): Plugin {
  return {
    name: 'linkify-it-match-only',
    apply: 'build',
    transform(code, id) {
      if (/linkify-it[\\/]index\.mjs$/.test(id)) {
        let trimmed = code;
        for (const name of linkifyUnusedMethods) {
          const next = trimmed.replace(new RegExp(`\\nLinkifyIt\\.prototype\\.${name} = function ${name} \\([^)]*\\) \\{\\n[\\s\\S]*?\\n\\}\\n`), '\n');
          if (next === trimmed) throw new Error(`${id}: no method ${name} where expected, see vite.config.ts`);
          trimmed = next;
        }
        return trimmed;
      }
      if (!/[\\/]client[\\/].+\.tsx?$/.test(id) || !code.includes('linkify-it')) return;
      const named = linkifyUnusedMethods.find((name) => new RegExp(`\\.${name}\\(`).test(code));
      if (named) throw new Error(`${id}: linkify-it's .${named} is left out of the build, see vite.config.ts`);
    },
  };
}

/**
 * @react-spring/web hands its string interpolator react-spring's table of ~150 CSS colour names, so
 * that a spring may go from "red" to "navy": ~1.7 KB (gzip) of the app's chunk. The app's springs move
 * numbers (the deck card's offset, and its turn and fade made from it), never a colour. Without the
 * table the interpolator takes the path react-spring has for none (hex, rgb() and hsl() colours still
 * animate, a colour's name does not). The build fails if the package no longer reads as expected.
 */
function springWithoutColorNames(): Plugin {
  return {
    name: 'react-spring-without-color-names',
    apply: 'build',
    transform(code, id) {
      if (!/@react-spring[\\/]web[\\/]dist[\\/][^\\/]+\.mjs$/.test(id)) return;
      const trimmed = code.replace(/(Globals\.assign\(\{[^}]*?),\s*colors\s*\}\)/, '$1\n})');
      if (trimmed === code) throw new Error(`${id}: no colour table handed to Globals.assign, see vite.config.ts`);
      return trimmed;
    },
  };
}

/**
 * The app's springs move numbers only (the deck card's offset; its turn, fade and stamps are made from
 * it by functions), with react-spring's default linear easing. react-spring still carries, for a spring
 * from "10px" to "50%" or between colours, its string interpolator with its colour parsing, and every
 * easing curve by name, ~1.8 KB (gzip) of the app's chunk. The build hands the interpolator to neither
 * Globals.assign (core's and web's), and gives the default config the linear curve itself, so both are
 * left out: a spring of strings would throw ("createStringInterpolator is not a function") in the built
 * app alone. The build fails if the packages no longer read as expected.
 */
function springNumbersOnly(): Plugin {
  return {
    name: 'react-spring-numbers-only',
    apply: 'build',
    transform(code, id) {
      const pkg = id.match(/@react-spring[\\/](web|core)[\\/]dist[\\/][^\\/]+\.mjs$/)?.[1];
      if (!pkg) return;
      let trimmed = code.replace(/(Globals\.assign\(\{[^}]*?)\bcreateStringInterpolator\b,?/, '$1');
      if (pkg === 'core') trimmed = trimmed.replace('easing: easings$1.linear,', 'easing: (t) => t,');
      if (/Globals\.assign\(\{[^}]*\bcreateStringInterpolator\b/.test(trimmed) || trimmed === code || (pkg === 'core' && trimmed.includes('easings$1.linear'))) {
        throw new Error(`${id}: no string interpolator (or linear easing) where expected, see vite.config.ts`);
      }
      return trimmed;
    },
  };
}

/**
 * @react-spring/web makes an animated component for each of ~140 HTML and SVG elements as it loads
 * (`animated.a` to `animated.tspan`): ~480 bytes (gzip) of names for the app's chunk, which animates a
 * div and spans (the deck card and its stamps). The build makes the elements listed here only, and
 * stops if a client module names another: `animated.p` would otherwise be undefined in the built app
 * alone (the dev server and the tests use the package as it is).
 */
const animatedElements = ['div', 'span'];
function springElementsUsed(): Plugin {
  return {
    name: 'react-spring-elements-used',
    apply: 'build',
    transform(code, id) {
      if (/@react-spring[\\/]web[\\/]dist[\\/][^\\/]+\.mjs$/.test(id)) {
        const trimmed = code.replace(/\bconst primitives = \[[^\]]*\]/, `const primitives = ${JSON.stringify(animatedElements)}`);
        if (trimmed === code) throw new Error(`${id}: no list of primitives, see vite.config.ts`);
        return trimmed;
      }
      if (!/[\\/]client[\\/].+\.tsx?$/.test(id)) return;
      for (const [, element] of code.matchAll(/\banimated\.(\w+)/g)) {
        if (!animatedElements.includes(element!)) throw new Error(`${id}: animated.${element} is not built, add it to animatedElements in vite.config.ts`);
      }
    },
  };
}

/**
 * React ships as CommonJS, so every module that imported a hook or the JSX runtime reached it through
 * the package's exports object: `(0, M.useState)(…)`, `(0, V.jsx)(…)` at each of ~1,200 calls. In the
 * browser build `react` and `react/jsx-runtime` are imported through a module of our own that hands
 * each export on as a binding of its own, which the minifier names in a letter or two; the package
 * (one copy: react-dom's `require` still reaches it as it is) is unchanged. An export nothing uses is
 * left out (`pick` is pure). ~0.5 KB (gzip) less for the app.
 */
const reactModules = ['react', 'react/jsx-runtime'];
function reactAsModules(): Plugin {
  const require = createRequire(import.meta.url);
  return {
    name: 'react-as-modules',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, _importer, options) {
      if (reactModules.includes(source) && options.kind !== 'require-call') return `\0react-module:${source}`;
    },
    load(id) {
      if (!id.startsWith('\0react-module:')) return;
      const source = id.slice('\0react-module:'.length);
      const names = Object.keys(require(source) as object).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
      const exports = names.map((name) => `export const ${name} = /* @__PURE__ */ pick(${JSON.stringify(name)});`);
      return [`import R from ${JSON.stringify(realpathSync(require.resolve(source)))};`, 'export default R;', 'const pick = (name) => R[name];', ...exports].join('\n');
    },
  };
}

/**
 * @use-gesture ships Babel's helpers for its object spreads and class fields: `_objectSpread2`, which
 * copies some arguments' properties as values and others by their descriptors (a getter copied as a
 * getter), and `_defineProperty`, which defines a field where a setter up the prototype chain would
 * otherwise take it, with `ownKeys`, `_toPropertyKey` and `_toPrimitive` for them. Its objects are plain
 * ones (options, states, the literals it spreads), and no field it sets has an accessor on its class:
 * an `Object.assign` and an assignment do the same, ~0.3 KB (gzip) less for the app. The spread keeps
 * its name, which the build knows as pure (`manualPureFunctions` below). The build fails if the
 * package no longer reads as expected.
 */
function gestureHelpersPlain(): Plugin {
  return {
    name: 'use-gesture-plain-helpers',
    apply: 'build',
    transform(code, id) {
      if (!/@use-gesture[\\/]core[\\/]dist[\\/]actions-[0-9a-f]+\.esm\.js$/.test(id)) return;
      const trimmed = code.replace(
        /\nfunction _toPrimitive\(input, hint\) \{\n[\s\S]*?\nfunction _objectSpread2\(e\) \{\n[\s\S]*?\n\}\n(?=\nconst EVENT_TYPE_MAP = )/,
        '\nfunction _defineProperty(obj, key, value) {\n  obj[key] = value;\n  return obj;\n}\nfunction _objectSpread2(target, ...sources) {\n  return Object.assign(target, ...sources);\n}\n',
      );
      if (trimmed === code) throw new Error(`${id}: no Babel helpers where expected, see vite.config.ts`);
      return trimmed;
    },
  };
}

/**
 * The page is rendered in the browser alone: main.tsx makes its root with createRoot, and no server
 * renders its HTML. react-dom's client still carries hydration, the adoption of a server's HTML that
 * hydrateRoot starts: a flag, `isHydrating`, read all through its reconciler, and the code behind it.
 * Set only where a hydration begins (a root made by hydrateRoot, or a boundary such a root left
 * dehydrated), the flag stays false in this app; the build makes it a constant, which the minifier
 * writes in, dropping the branches it guards: ~1.4 KB (gzip) less for the landing page and the app
 * alike. The build stops if a client module names hydrateRoot (a hydration would silently not take in
 * the built app alone), or if the package no longer reads as expected.
 */
function reactDomWithoutHydration(): Plugin {
  return {
    name: 'react-dom-without-hydration',
    apply: 'build',
    transform(code, id) {
      if (/[\\/]client[\\/].+\.tsx?$/.test(id)) {
        if (/\bhydrateRoot\b/.test(code)) throw new Error(`${id}: react-dom's build has no hydration, see vite.config.ts`);
        return;
      }
      if (!/react-dom[\\/]cjs[\\/]react-dom-client\.production\.js$/.test(id)) return;
      // Every write to the flag goes: the ones in expressions become `void 0`, the statements empty.
      let writes = 0;
      const constant = code
        .replace(/\(isHydrating = !0\)/g, () => (writes++, '(void 0)'))
        .replace(/^( *)isHydrating = ![01];$/gm, (_line, indent: string) => (writes++, `${indent};`));
      const left = [...constant.matchAll(/\bisHydrating\s*=[^=]/g)].length;
      // What remains is its declaration (`var …, isHydrating = !1,`), the value it now keeps.
      if (writes === 0 || left !== 1 || !/\n {2}isHydrating = !1,\n/.test(constant)) {
        throw new Error(`${id}: isHydrating written other than where expected (${writes} writes taken, ${left} left), see vite.config.ts`);
      }
      return constant;
    },
  };
}

/**
 * react-dom's reconciler reads and writes the fields of its own objects by name at every step: a
 * fiber's `memoizedState` alone ~270 times, its `stateNode`, `alternate`, `sibling`, `updateQueue` and
 * the rest, the root's lanes, and its hooks', update queues' and boundaries' fields, ~1,300 in all. They are
 * react-dom's alone: no other module of the build names one (React's, the scheduler's, the other
 * react-dom module's, the libraries' and ours; the build stops if a client module does), the
 * reconciler never reaches one through a string, a spread or a key it computes, and none is the name
 * of a DOM property or of an option handed in. The build gives them short names in that module (the
 * minifier picks names no other property there has), ~1.1 KB (gzip) less for the landing page and the
 * app alike; only React's developer tools, which read a fiber from outside, no longer find them in the
 * built app. Names other objects share stay as they are (`return`, `child`, `tag`, `flags`, `lanes`,
 * `current`, `next`; `containerInfo`, which a portal made by the other module carries too). The build
 * fails if the module no longer names one of them.
 */
const fiberFields = [
  // A fiber's own.
  'memoizedState', 'stateNode', 'memoizedProps', 'alternate', 'sibling', 'updateQueue', 'subtreeFlags', 'pendingProps', 'childLanes',
  'elementType', 'deletions', 'refCleanup', '_fragmentFiber',
  // The root's, an update queue's, an effect list's and a boundary's.
  'pendingLanes', 'suspendedLanes', 'pingedLanes', 'warmLanes', 'entangledLanes', 'entanglements', 'callbackNode', 'callbackPriority',
  'cancelPendingCommit', 'timeoutHandle', 'pooledCache', 'isDehydrated', 'baseState', 'firstBaseUpdate', 'lastBaseUpdate', 'lastEffect',
  'retryLane', 'dehydrated', 'cachePool', 'tailMode', '_visibility', 'hiddenUpdates', 'expirationTimes', 'pingCache', 'shellSuspendCounter',
  'pendingContext', 'pooledCacheLanes', 'retryQueue', 'baseLanes', 'treeContext', 'renderingStartTime', 'isBackwards',
  // A hook's queue and its updates', and a fiber's context list's.
  'baseQueue', 'lastRenderedState', 'lastRenderedReducer', 'hasEagerState', 'eagerState', 'revertLane', 'memoCache', 'firstContext',
];
function reactDomShortFiberFields(): Plugin {
  const named = new RegExp(`\\b(${fiberFields.join('|')})\\b`);
  return {
    name: 'react-dom-short-fiber-fields',
    apply: 'build',
    transform(code, id) {
      if (/[\\/]client[\\/].+\.tsx?$/.test(id)) {
        const name = code.match(named)?.[1];
        if (name) throw new Error(`${id}: ${name} is a name react-dom's build shortens, see vite.config.ts`);
        return;
      }
      if (!/react-dom[\\/]cjs[\\/]react-dom-client\.production\.js$/.test(id)) return;
      const missing = fiberFields.find((name) => !new RegExp(`\\.${name}\\b`).test(code));
      if (missing) throw new Error(`${id}: no field ${missing} where expected, see vite.config.ts`);
      const result = minifySync(id, code, { compress: false, mangle: false, codegen: { removeWhitespace: false }, mangleProps: { include: new RegExp(`^(${fiberFields.join('|')})$`) } });
      if (result.errors.length > 0) throw new Error(`${id}: ${result.errors[0]!.message}, see vite.config.ts`);
      return result.code;
    },
  };
}

/**
 * React ships as CommonJS: react-dom takes the whole package with `require`, so none of its exports is
 * left out, used or not. These are used by no module of the build, the client's or a library's:
 * `Children` (map, forEach, count, toArray and only, over children nested in arrays, iterables and lazy
 * ones), `startTransition` and `addTransitionType` (React's own, apart from useTransition's),
 * `PureComponent`, `createRef`, the hooks `useActionState`, `useOptimistic`, `useDeferredValue`,
 * `useEffectEvent`, `useImperativeHandle` and `unstable_useCacheRefresh`, `cacheSignal`, the element
 * types `Profiler` and `ViewTransition`, and the compiler's runtime. The build leaves them out of React,
 * ~1.2 KB (gzip) less for the landing page and the app alike, and stops if a module other than React's
 * own names one (react-dom, whose dispatcher has hooks of these names, if it reads one off React): it
 * would be undefined in the built app alone. It stops too if the package no longer reads as expected.
 */
const reactUnused = [
  'Children',
  'startTransition',
  'addTransitionType',
  'PureComponent',
  'createRef',
  'useActionState',
  'useOptimistic',
  'useDeferredValue',
  'useEffectEvent',
  'useImperativeHandle',
  'unstable_useCacheRefresh',
  'cacheSignal',
  'Profiler',
  'ViewTransition',
  '__COMPILER_RUNTIME',
];
function reactWithoutUnused(): Plugin {
  const named = new RegExp(`\\b(${reactUnused.join('|')})\\b`);
  const readOffReact = new RegExp(`\\bReact\\.(${reactUnused.join('|')})\\b`);
  return {
    name: 'react-without-unused',
    apply: 'build',
    transform(code, id) {
      if (/[\\/]react[\\/]cjs[\\/]react\.production\.js$/.test(id)) {
        // Children's object itself, then each export's statement, up to the next export.
        let trimmed = code.replace(/\nvar Children = \{\n[\s\S]*?\n\};\n/, '\n');
        if (trimmed === code) throw new Error(`${id}: no React.Children where expected, see vite.config.ts`);
        for (const name of reactUnused) {
          const statement = trimmed.match(new RegExp(`\\nexports\\.${name} =[\\s\\S]*?(?=\\nexports\\.)`))?.[0];
          // One statement: no line of it but its first starts a declaration of its own.
          if (!statement || /\n[^\s}]/.test(statement.slice(1))) throw new Error(`${id}: no export ${name} where expected, see vite.config.ts`);
          trimmed = trimmed.replace(statement, '');
        }
        return trimmed;
      }
      // React's module of bindings (`reactAsModules`) names every export, each left out unless used.
      if (id.startsWith('\0react-module:')) return;
      const name = (/[\\/]react-dom[\\/]cjs[\\/]/.test(id) ? code.match(readOffReact) : code.match(named))?.[1];
      if (name) throw new Error(`${id}: React's ${name} is left out of the build, see vite.config.ts`);
    },
  };
}

/**
 * The scheduler's exports that react-dom never calls, and no other module names: running a callback at
 * a priority, or at the next one down, wrapping one to keep the current priority, forcing a frame rate,
 * and its profiling hooks (none in production). Its package is CommonJS, which react-dom takes whole
 * with `require`; the build leaves these out, and the minifier then writes in the frame interval that
 * only the frame rate's setter changed: ~0.2 KB (gzip) less for the landing page and the app alike.
 * The build stops if a module other than the scheduler's own names one (it would be undefined in the
 * built app alone), or if the package no longer reads as expected.
 */
const schedulerUnused = ['unstable_Profiling', 'unstable_forceFrameRate', 'unstable_next', 'unstable_runWithPriority', 'unstable_wrapCallback'];
function schedulerWithoutUnused(): Plugin {
  const named = new RegExp(`\\b(${schedulerUnused.join('|')})\\b`);
  return {
    name: 'scheduler-without-unused',
    apply: 'build',
    transform(code, id) {
      if (/[\\/]scheduler[\\/]cjs[\\/]scheduler\.production\.js$/.test(id)) {
        let trimmed = code;
        for (const name of schedulerUnused) {
          // Up to the next export, or to the file's end for the last.
          const without = trimmed.replace(new RegExp(`\\nexports\\.${name} = (null;|function \\([^)]*\\) \\{\\n[\\s\\S]*?\\n\\};)(?=\\n(exports\\.|$))`), '');
          if (without === trimmed) throw new Error(`${id}: no ${name} where expected, see vite.config.ts`);
          trimmed = without;
        }
        if (named.test(trimmed)) throw new Error(`${id}: ${trimmed.match(named)?.[1]} still named, see vite.config.ts`);
        return trimmed;
      }
      const name = code.match(named)?.[1];
      if (name) throw new Error(`${id}: the scheduler's ${name} is left out of the build, see vite.config.ts`);
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
 * each, and so does the block and report dialog (opened from a chat, a match or a profile, ~0.7 KB
 * gzip less than a chunk of its own). The service worker stores every chunk once the app has opened,
 * so a phone downloads them all anyway: one file, compressed as one, is ~5 KB (gzip) less than the ten
 * it replaces. Only their own modules, named here (with the organizer's store, the password change and
 * the settings' and safety copy's loaders, which only they use): a module the public event page also
 * uses (EventSummary) would make a guest's page fetch the whole group.
 */
const secondaryPages = {
  name: 'app-more',
  test: /client[\\/](pages[\\/](app[\\/](Settings|Likes|Blocked|EndedChats)|events[\\/](Events|NewEvent|EditEvent|HostScreen|EventForm))\.tsx|stores[\\/]host\.ts|lib[\\/](messages-(settings|safety)|password-change)\.ts|components[\\/]SafetyDialog\.tsx)$/,
};

/**
 * What an event's public page shares with the app's event pages (the list, the new and edit forms, the
 * host screen): its summary, the sheet that asks to leave another event first, the events' copy loader
 * and the code's normalizer. Both load all four, and nothing else loads any, so they come as one chunk:
 * left alone, the bundler made three of them, each compressed alone (~0.2 KB gzip more).
 */
const eventShared = {
  name: 'event-shared',
  test: /(client[\\/](pages[\\/]events[\\/](SwitchEventSheet|EventSummary)\.tsx|lib[\\/]messages-events\.ts)|shared[\\/]event-code\.ts)$/,
};

/**
 * What an event's public page shares with the signed-in app's first load: the app's calls, the event's
 * status and the clock it is read by, the pending join, the dates' formats, the sheets and the icons.
 * Every page that loads one loads them all (the event page, AppRoot, the profile's editor, the
 * moderators' pages), so they come as one chunk: left alone, the calls were a chunk of their own,
 * compressed apart from the rest (~0.15 KB gzip more). A language that a signed-in visitor switches
 * to outside the app is saved through the calls (client/stores/session.ts), which fetch the rest too.
 */
const appAndEventPage = {
  name: 'event-status',
  test: /(client[\\/](lib[\\/](api-app|event-status|format|pending-join|server-clock)\.ts|components[\\/](Sheet|AppIcons)\.tsx)|shared[\\/]event-status\.ts)$/,
};

/**
 * The modules that only the signed-in app loads, in one chunk. AppRoot loads them all at once (they
 * are its static imports), but left alone the bundler put those it shares with the app's lazy pages
 * (the socket and its library, the deck's and the events' stores, the device cache, the loading
 * screen) in five small chunks, each compressed alone: ~1.4 KB (gzip) more than one. Which modules
 * they are is read from the import graph once it is built: those AppRoot imports and no page reached
 * without it imports (the landing page, sign-up, an event's public page, the toasts), so a guest
 * never fetches the chunk. AppRoot's own module stays in its entry chunk, which imports this one:
 * taken in too, it would leave the manifest with no entry for the app (bench/client-bundle.ts finds
 * the app by it).
 */
const signedInOnly = new Set<string>();
function findSignedInOnly(): Plugin {
  return {
    name: 'signed-in-only-modules',
    apply: 'build',
    buildEnd() {
      const ids = [...this.getModuleIds()];
      const appRoot = ids.find((id) => /client[\\/]pages[\\/]app[\\/]AppRoot\.tsx$/.test(id));
      // Another build with this config (the bundle bench's bare page) has no app.
      if (!appRoot) return;
      /** The modules these load, with those they import lazily when `lazy`, never going through `avoid`. */
      const reached = (from: string[], lazy: boolean, avoid?: string) => {
        const seen = new Set<string>();
        const next = [...from];
        for (let id = next.pop(); id !== undefined; id = next.pop()) {
          if (seen.has(id) || id === avoid) continue;
          seen.add(id);
          const module = this.getModuleInfo(id);
          next.push(...(module?.importedIds ?? []), ...(lazy ? (module?.dynamicallyImportedIds ?? []) : []));
        }
        return seen;
      };
      const entries = ids.filter((id) => this.getModuleInfo(id)?.isEntry);
      const withoutApp = reached(entries, true, appRoot);
      signedInOnly.clear();
      for (const id of reached([appRoot], false)) if (id !== appRoot && !withoutApp.has(id)) signedInOnly.add(id);
    },
  };
}
const signedInApp = {
  name: 'app',
  test: (id: string) => signedInOnly.has(id),
};

/**
 * The JavaScript files each chunk loads with it (its static imports, and theirs), by its file name:
 * what a lazy import from that chunk need not list (`modulePreload` below). Found before Vite writes
 * those lists, in a `generateBundle` of its own that runs after this one.
 */
const loadedWith = new Map<string, Set<string>>();
function findLoadedWith(): Plugin {
  return {
    name: 'loaded-with',
    apply: 'build',
    generateBundle(_options, bundle) {
      loadedWith.clear();
      for (const [host, chunk] of Object.entries(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const loaded = new Set<string>();
        const next = [...chunk.imports];
        for (let file = next.pop(); file !== undefined; file = next.pop()) {
          if (loaded.has(file)) continue;
          loaded.add(file);
          const imported = bundle[file];
          if (imported?.type === 'chunk') next.push(...imported.imports);
        }
        loadedWith.set(host, loaded);
      }
    },
  };
}

export default defineConfig({
  root: 'client',
  plugins: [
    reactAsModules(),
    react(),
    websocketOnly(),
    socketWithoutAnyListeners(),
    socketTextOnly(),
    linkifyMatchOnly(),
    springWithoutColorNames(),
    springElementsUsed(),
    springNumbersOnly(),
    reactDomWithoutHydration(),
    reactDomShortFiberFields(),
    gestureHelpersPlain(),
    reactWithoutUnused(),
    schedulerWithoutUnused(),
    findSignedInOnly(),
    findLoadedWith(),
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
    // A page the entry loads lazily (sign-up, the app's door, an event's page) comes with the list of the
    // chunks it needs, fetched at once beside it, and so does a page AppRoot loads lazily (settings, the
    // events, the profile's editor), less what came with AppRoot: the app opened at such a page would
    // otherwise fetch the page's stylesheets, then its chunk, then the chunks that one imports, each once
    // the one before had come. Other lazy imports (a dialog, a chart) list none: the app has loaded most
    // of what they need, and the service worker stores every chunk once the app opens; their lists,
    // ~0.1 KB (gzip), bought little. (Stylesheets are always listed: the helper loads those.) The entry
    // is the chunk of the `firstLoad` group, named `index`.
    modulePreload: {
      polyfill: false,
      resolveDependencies: (_file, deps, { hostId }) =>
        /(^|\/)(index|AppRoot)-[0-9a-f]+\.js$/.test(hostId) ? deps.filter((dep) => !loadedWith.get(hostId)?.has(dep)) : [],
    },
    rolldownOptions: {
      // @use-gesture builds the options of every gesture it knows when it loads, each copied with Babel's
      // `_objectSpread2` helper (which only copies properties); the app's drags use one. Known to be pure,
      // the others (pinch, move, hover) are left out, ~220 bytes (gzip).
      treeshake: { manualPureFunctions: ['_objectSpread2'] },
      // An imported constant is written as its value wherever it is used, not only in conditions (the
      // default): fewer declarations, and fewer names for the chunks to export and import, ~170 bytes
      // (gzip) less for the landing page and ~270 for the app.
      optimization: { inlineConst: { mode: 'all' } },
      // Hex file hashes: the entry names every lazy chunk and stylesheet it may load, and hex (8 characters,
      // 32 bits) compresses better than base64 there; a collision between two versions of one chunk stays
      // out of reach.
      output: { hashCharacters: 'hex', codeSplitting: { includeDependenciesRecursively: false, groups: [firstLoad, secondaryPages, eventShared, appAndEventPage, signedInApp] } },
    },
  },
  server: {
    proxy: {
      '/api': api,
      '/media': api,
      '/socket.io': { target: api, ws: true },
    },
  },
});
