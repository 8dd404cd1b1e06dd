/**
 * `npm run loadtest -- --url <base> --attendees <N> --minutes <M> [--event <code>] [--instances a,b] [--json <file>]`
 * Simulates a party against a running deployment (loadtest/party.ts) and prints what people would have felt.
 * Exit status: 0 when nothing was lost or duplicated, 1 when something was, a send was never answered, or phones
 * were still offline at the end (nothing meant for them confirmed), 2 for a setup problem or bad flags,
 * 128 + the signal's number when Ctrl-C or SIGTERM ended the party early (and nothing was lost).
 */
import { open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { DRAIN_MAX_MS, errorsText, heapText, machine, type PartyResult, type Progress, runParty, SetupError, toolWaitsText } from './party';
import { NetworkError } from './rest';

/** One process holds a socket and a few KB of heap per attendee: 5,000 measured, twice that at most. */
const MAX_ATTENDEES = 10_000;
/** A day: a typo's larger figure is refused rather than run. */
const MAX_MINUTES = 24 * 60;
/** The drain ends then whatever arrives: a longer quiet would never be waited out. */
const MAX_DRAIN_QUIET_SECONDS = DRAIN_MAX_MS / 1000;

const HELP = `npm run loadtest -- --url <base> --attendees <N> --minutes <M> [options]

Simulates a party against a running server: N attendees registered through the API (or reused from an
earlier run), each with a completed profile and a Socket.IO connection, checked in to an event (a new
QR event unless --event is given), swiping one card every 2-5 s, chatting with their matches (a message
every 5-20 s, typing first), some putting their phone away for a few seconds and coming back.

Options:
  --url <base>          the server (setup goes there), e.g. http://127.0.0.1:3000 or
                        https://staging.example.com (its certificate's CA, if not a
                        public one: NODE_EXTRA_CA_CERTS=<file.pem>)                   (required)
  --attendees <N>       simulated attendees, at most ${MAX_ATTENDEES} (one process)              (default 50)
  --minutes <M>         length of the party, decimals allowed, at most ${MAX_MINUTES} (a day)   (default 1)
  --event <code>        check in to this event (a 'code' event, or a QR event this tool created)
  --instances <a,b>     base URLs the attendees are spread over, round robin (default: --url)
  --json <file>         also write the results as JSON
  --state <file>        accounts kept between runs (default ./data/loadtest/<host>_<port>.json)
  --fresh               register new attendees instead of reusing the state file's
  --arrive-over <s>     attendees arrive over the party's first s seconds, as a venue
                        fills: each opens the app, checks in and starts swiping at a
                        random moment of it; at most half the party  (default 0: all
                        connected and checked in before it starts)
  --leave-share <0-1>   share of attendees who leave and come back once             (default 0.2)
  --like-share <0-1>    share of swipes that are likes; the rest dislikes and skips  (default 0.6)
  --setup-concurrency <n>  setup requests in flight                                  (default 16)
  --drain-quiet <s>     after the party, seconds with nothing new arriving before what
                        has not come counts as lost (longer for a server slow to catch
                        up), at most ${MAX_DRAIN_QUIET_SECONDS} (the drain's end)                           (default 10)
  -h, --help            this text

The server must let one address do what a crowd does: start it with RATE_LIMIT_MULTIPLIER=1000.
Ctrl-C during the party ends it early: what was sent drains, and the results so far are printed
(and written to --json); Ctrl-C again stops at once.
Exit status: 0 nothing lost, 1 a message or match overlay lost or duplicated, a message:send
never answered, or phones still offline when the party has drained (what was meant for them is
unconfirmed), 2 setup failed or a bad flag,
130 the party was ended early by Ctrl-C (143 by SIGTERM) and nothing was lost.`;

function fail(message: string): never {
  console.error(`loadtest: ${message}`);
  process.exit(2);
}

function parse() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: 'string' },
        attendees: { type: 'string', default: '50' },
        minutes: { type: 'string', default: '1' },
        event: { type: 'string' },
        instances: { type: 'string' },
        json: { type: 'string' },
        state: { type: 'string' },
        fresh: { type: 'boolean', default: false },
        'arrive-over': { type: 'string', default: '0' },
        'leave-share': { type: 'string', default: '0.2' },
        'like-share': { type: 'string', default: '0.6' },
        'setup-concurrency': { type: 'string', default: '16' },
        'drain-quiet': { type: 'string', default: '10' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(`${(error as Error).message} (see --help)`);
  }
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  if (!values.url) fail('--url is required (see --help)');
  const number = (name: string, value: string, check: (n: number) => boolean, bounds?: string) => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || !check(parsed)) fail(`--${name} ${value} is not valid${bounds ? `: ${bounds}` : ''} (see --help)`);
    return parsed;
  };
  return {
    url: values.url,
    attendees: number(
      'attendees',
      values.attendees,
      (n) => Number.isInteger(n) && n >= 2 && n <= MAX_ATTENDEES,
      `a whole number from 2 to ${MAX_ATTENDEES} (one process, a socket each)`,
    ),
    minutes: number('minutes', values.minutes, (n) => n > 0 && n <= MAX_MINUTES, `more than 0 and at most ${MAX_MINUTES} (a day)`),
    event: values.event,
    instances: values.instances?.split(',').map((each) => each.trim()).filter(Boolean),
    json: values.json,
    stateFile: values.state,
    fresh: values.fresh,
    arriveOverSeconds: number('arrive-over', values['arrive-over'], (n) => n >= 0),
    leaveShare: number('leave-share', values['leave-share'], (n) => n >= 0 && n <= 1),
    likeShare: number('like-share', values['like-share'], (n) => n >= 0 && n <= 1),
    setupConcurrency: number('setup-concurrency', values['setup-concurrency'], (n) => Number.isInteger(n) && n >= 1),
    drainQuietSeconds: number('drain-quiet', values['drain-quiet'], (n) => n > 0 && n <= MAX_DRAIN_QUIET_SECONDS, `more than 0 and at most ${MAX_DRAIN_QUIET_SECONDS}`),
  };
}

const ms = (value: number | null | undefined) => (value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(1));

function progressLine(p: Progress) {
  const head = p.phase === 'setup' ? `setup ${p.ready}/${p.attendees}` : p.phase;
  return (
    `${p.elapsedSeconds.toFixed(0).padStart(4)} s ${head.padEnd(12)} connected ${p.connected}/${p.attendees}  check-ins ${p.checkIns}  ` +
    `swipes ${p.swipes}  matches ${p.matches}  messages ${p.messagesDelivered}/${p.messagesSent}  errors ${p.errors}  ` +
    `p99 overlay ${ms(p.recentP99.matchOverlay)} msg ${ms(p.recentP99.messageDelivery)} rest ${ms(p.recentP99.rest)} ms`
  );
}

function table(header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

function report(result: PartyResult) {
  const latency = (name: string, s: { count: number; p50: number | null; p95: number | null; p99: number | null; max: number | null }) => [
    name,
    String(s.count),
    ms(s.p50),
    ms(s.p95),
    ms(s.p99),
    ms(s.max),
  ];
  const rows = [
    latency('match overlay (like → match:new on the other phone)', result.latency_ms.match_overlay),
    latency('message delivery (send → message:new at the recipient)', result.latency_ms.message_delivery),
    latency('reconnect (socket handshake, every reconnection)', result.latency_ms.reconnect),
    latency('presence:list (who is online, at every connect)', result.latency_ms.presence_list),
    ...Object.entries(result.latency_ms.rest).map(([route, s]) => latency(route, s)),
  ];
  const m = result.counts.messages;
  const o = result.counts.match_overlays;
  const lines = [
    '',
    `Party: ${result.attendees} attendees, ${result.minutes} min${result.interrupted_after_s === null ? '' : ` (interrupted after ${result.interrupted_after_s} s)`}, event ${result.event.code}, instances ${result.instances.join(', ')}`,
    '',
    table(['latency, ms', 'count', 'p50', 'p95', 'p99', 'max'], rows),
    '',
    table(
      ['counts', 'sent', 'acknowledged', 'delivered', 'recovered', 'lost', 'duplicated', 'unanswered', 'refused'],
      [
        ['messages', String(m.sent), String(m.acknowledged), String(m.delivered), String(m.recovered), String(m.lost), String(m.duplicated), String(m.unanswered), String(m.refused)],
        ['match overlays', String(o.expected), '—', String(o.delivered), String(o.recovered), String(o.lost), '—', '—', '—'],
      ],
    ),
    '',
    `check-ins ${result.counts.check_ins}, swipes ${result.counts.swipes} (likes ${result.counts.likes}), matches ${result.counts.matches}, ` +
      `reconnects ${result.counts.reconnects}, dropped sockets ${result.counts.drops} (${result.counts.server_disconnects} disconnected by the server)`,
    `errors: ${errorsText(result.counts.errors)}`,
    `the tool itself: ${result.tool.cpu_seconds} s CPU, ${result.tool.cpu_us_per_operation} µs per operation (${result.tool.operations} socket frames and REST calls), ` +
      `${result.tool.cpu_us_per_message ?? '—'} µs per chat message sent, ${heapText(result.tool.heap_kb_per_attendee)}, RSS ${result.tool.rss_mb} MB, ` +
      toolWaitsText(result.tool),
    `${machine()}`,
    ...verdict(result),
  ];
  const failed = Object.values(result.counts.errors).reduce((sum, n) => sum + n, 0);
  if (failed > 0) lines.push(`Note: ${failed} requests or connections failed (errors above): the server, not the counts, may be the story of this run.`);
  if (result.counts.swipes > 0 && result.counts.matches === 0) lines.push('Note: no match happened, so nothing was timed on the other phone: a longer party, more attendees, or --fresh (reused attendees have swiped each other).');
  return lines.join('\n');
}

/** The run's verdict: what was lost or duplicated, and what cannot be told because phones never came back. */
function verdict(result: PartyResult) {
  if (result.ok) return ['OK: nothing lost, nothing duplicated.'];
  const m = result.counts.messages;
  const lines = [];
  if (m.lost + m.duplicated + m.unanswered + result.counts.match_overlays.lost > 0) {
    lines.push('FAILED: something was lost, duplicated or never answered (see the counts above).');
  }
  const offline = result.counts.offline_at_end;
  if (offline > 0) {
    lines.push(`FAILED: ${offline} of ${result.attendees} phones were still offline at the end (the server stopped answering?): what was meant for them is unconfirmed.`);
  }
  return lines;
}

/** `--json` is written at the end: a path that cannot take it is told now, not after a long party. */
async function checkWritable(file: string) {
  try {
    try {
      // A file there already is written over at the end.
      await (await open(file, 'r+')).close();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // None yet: one can be made there (and none is left behind should the party not start).
      await (await open(file, 'wx')).close();
      await rm(file);
    }
  } catch (error) {
    fail(`--json ${file} cannot be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const options = parse();
if (options.json) await checkWritable(options.json);
const tty = process.stdout.isTTY === true;
// Output piped into something that stops reading (`| head`): the party goes on, and its exit status
// and --json still tell how it went.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
let lastPlain = 0;
/** The phase the live display last showed: Ctrl-C ends a party, but stops setup or a drain at once. */
let phase: Progress['phase'] | null = null;
/** The exit status of the signal that ended the party early. */
let interrupted: number | null = null;
const interrupt = new AbortController();
function stop(signal: NodeJS.Signals) {
  const status = 128 + os.constants.signals[signal];
  if (tty) process.stdout.write('\n');
  if (interrupted !== null || phase !== 'party') {
    console.error(`loadtest: ${signal}: stopped ${phase === 'party' || phase === 'drain' ? 'without the results' : 'before the party began'}`);
    process.exit(status);
  }
  interrupted = status;
  console.error(`loadtest: ${signal}: ending the party now; the results follow once what was sent has arrived (${signal} again: stop at once)`);
  interrupt.abort();
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
try {
  const result = await runParty({
    ...options,
    signal: interrupt.signal,
    log: (line) => console.log(tty ? `\r\x1b[2K${line}` : line),
    onProgress: (progress) => {
      phase = progress.phase;
      if (tty) {
        process.stdout.write(`\r\x1b[2K${progressLine(progress).slice(0, (process.stdout.columns ?? 200) - 1)}`);
      } else if (progress.elapsedSeconds - lastPlain >= 5) {
        lastPlain = progress.elapsedSeconds;
        console.log(progressLine(progress));
      }
    },
  });
  if (tty) process.stdout.write('\r\x1b[2K');
  console.log(report(result));
  if (options.json) {
    await writeFile(options.json, `${JSON.stringify(result, null, 2)}\n`).catch((error: NodeJS.ErrnoException) =>
      fail(`--json ${options.json} could not be written: ${error.code ?? error.message}`),
    );
  }
  // A party cut short is no pass: its own status, unless something was lost in what it did.
  process.exit(result.ok ? (interrupted ?? 0) : 1);
} catch (error) {
  if (tty) process.stdout.write('\n');
  if (error instanceof SetupError) fail(error.message);
  if (error instanceof NetworkError) fail(`the server stopped answering during setup: ${error.message}`);
  throw error;
}
