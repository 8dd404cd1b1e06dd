/**
 * What the tool itself costs during the party: its CPU, its operations (socket frames and REST
 * calls), its own event-loop delay and REST pool wait, all in what it times; and its heap per attendee.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { eventLoopDelay } from './event-loop-delay';
import { Histogram } from './histogram';
import { LeanSocket } from './lean-socket';
import type { Rest } from './rest';
import type { PartyResult } from './result';
import type { Tally } from './tally';

const hundredths = (ms: number) => Math.round(ms * 100) / 100;

/** Measures from its making (the party's start) to `stop()` (the drain's end). */
export class ToolMeter {
  private readonly cpuBefore = process.cpuUsage();
  private readonly loopDelay = eventLoopDelay(5);
  private readonly framesBefore = LeanSocket.frames();
  private readonly restBefore: number;
  private readonly sentBefore: number;
  private cpuMicros = 0;
  private operations = 0;

  constructor(
    private readonly rest: Rest,
    private readonly tally: Tally,
  ) {
    this.restBefore = rest.requests;
    rest.poolWait = new Histogram();
    this.sentBefore = tally.counts.sent;
  }

  stop() {
    const cpu = process.cpuUsage(this.cpuBefore);
    this.loopDelay.stop();
    const frames = LeanSocket.frames();
    this.operations = frames.in - this.framesBefore.in + frames.out - this.framesBefore.out + this.rest.requests - this.restBefore;
    this.cpuMicros = cpu.user + cpu.system;
  }

  /** `heapPerAttendee`: bytes, as `heapPerAttendee()` measured them (null: not measured). */
  figures(heapPerAttendee: number | null): PartyResult['tool'] {
    const { cpuMicros, operations, loopDelay, rest } = this;
    const sent = this.tally.counts.sent;
    return {
      cpu_seconds: Math.round(cpuMicros / 1e4) / 100,
      operations,
      cpu_us_per_operation: Math.round(cpuMicros / Math.max(1, operations)),
      cpu_us_per_message: sent > this.sentBefore ? Math.round(cpuMicros / (sent - this.sentBefore)) : null,
      heap_kb_per_attendee: heapPerAttendee === null ? null : hundredths(heapPerAttendee / 1024),
      rss_mb: Math.round(process.memoryUsage().rss / 1e6),
      event_loop_delay_ms: { p99: hundredths(loopDelay.percentile(99)), max: hundredths(loopDelay.max()) },
      rest_pool_wait_ms: { p99: rest.poolWait.count ? hundredths(rest.poolWait.percentile(99)) : 0, max: hundredths(rest.poolWait.max) },
    };
  }
}

/**
 * The heap the attendees keep: `measure(attendees)` after they are made, connected and checked in,
 * against the heap when this was called; bytes per attendee.
 */
export function heapPerAttendee(): (attendees: number) => number {
  const collectGarbage = fullGc();
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  return (attendees) => {
    collectGarbage();
    return (process.memoryUsage().heapUsed - heapBefore) / Math.max(1, attendees);
  };
}

/**
 * A full GC, taken before each reading of the tool's heap: the heap per attendee is then what the
 * attendees keep, not whatever garbage a collection happened to take away in between (which can make
 * it negative). `npm run loadtest` runs node with --expose-gc; anywhere else (a test's worker, the
 * CLI run without the script) V8's own is exposed here.
 */
function fullGc(): () => void {
  if (typeof global.gc === 'function') return global.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
