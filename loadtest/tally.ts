/**
 * The party's figures: what it counts and times while it runs, the ledger of the chat messages sent
 * until each is accounted for, the live figures of the progress display, and the result they make at
 * the end.
 */
import { Histogram } from './histogram';
import type { MatchOverlays } from './overlays';
import type { Rest } from './rest';
import type { PartyResult, Progress } from './result';

const SECOND = 1000;

export interface SentMessage {
  recipient: number;
  conversationId: number;
  seq: number;
  at: number;
  /** Its last emit was answered (an `unavailable` too, which leaves it to be sent again at the reconnect). */
  answered: boolean;
  acked: boolean;
  delivered: boolean;
}

/** What the result says of the run itself, beside the tally's figures. */
export interface RunFigures {
  url: string;
  instances: string[];
  attendees: number;
  minutes: number;
  /** When the party was ended early: how long it had lasted, s. */
  interruptedAfter: number | null;
  event: { id: number; code: string; joinMode: 'qr' | 'code' };
  stateFile: string;
  offlineAtEnd: number;
}

export class Tally {
  readonly counts = {
    checkIns: 0,
    swipes: 0,
    likes: 0,
    matches: 0,
    reconnects: 0,
    drops: 0,
    serverDisconnects: 0,
    sent: 0,
    acknowledged: 0,
    delivered: 0,
    recovered: 0,
    duplicated: 0,
    refused: 0,
  };
  readonly errors = new Map<string, number>();
  readonly overlay = new Histogram();
  readonly delivery = new Histogram();
  readonly reconnect = new Histogram();
  readonly presenceList = new Histogram();
  /** The overlays and deliveries since the live display's last figures. */
  private recent = { overlay: new Histogram(), delivery: new Histogram() };

  // The live display's.
  phase: Progress['phase'] = 'setup';
  ready = 0;
  connected = 0;

  /** The messages sent, by client_id, until each is both acknowledged and delivered (or refused). */
  readonly messages = new Map<string, SentMessage>();
  /**
   * The client_ids sent again after a reconnect: the server pushes a resent message again (the instance
   * that stored it may have gone before telling of it), so its recipient may hear its id twice, as the
   * app's chat does, and shows it once. Few: only what was unanswered when a connection ended.
   */
  readonly resent = new Set<string>();
  /** The last message's number (in its text). */
  seq = 0;

  /** `started`: when the run began (`performance.now()`), where the live figures count from. */
  constructor(
    private readonly attendees: number,
    private readonly started: number,
  ) {}

  error(what: string) {
    this.errors.set(what, (this.errors.get(what) ?? 0) + 1);
  }

  overlayShown(ms: number) {
    this.overlay.record(ms);
    this.recent.overlay.record(ms);
  }

  deliveredIn(ms: number) {
    this.delivery.record(ms);
    this.recent.delivery.record(ms);
  }

  /** The live figures, with the p99s of what came since the last ones. */
  progress(rest: Rest): Progress {
    const { counts, recent } = this;
    const p99 = (histogram: Histogram) => (histogram.count ? histogram.percentile(99) : null);
    const figures: Progress = {
      phase: this.phase,
      elapsedSeconds: (performance.now() - this.started) / SECOND,
      attendees: this.attendees,
      ready: this.ready,
      connected: this.connected,
      checkIns: counts.checkIns,
      swipes: counts.swipes,
      matches: counts.matches,
      messagesSent: counts.sent,
      messagesDelivered: counts.delivered + counts.recovered,
      errors: [...this.errors.values()].reduce((sum, n) => sum + n, 0),
      recentP99: { matchOverlay: p99(recent.overlay), messageDelivery: p99(recent.delivery), rest: p99(rest.takeRecent()) },
    };
    this.recent = { overlay: new Histogram(), delivery: new Histogram() };
    return figures;
  }

  /** The figures of the run, once it has drained. */
  result(run: RunFigures, overlays: MatchOverlays, rest: Rest, tool: PartyResult['tool']): PartyResult {
    const { counts } = this;
    let lost = 0;
    let unanswered = 0;
    for (const message of this.messages.values()) {
      if (message.acked && !message.delivered) lost += 1;
      if (!message.acked) unanswered += 1;
    }
    const restFigures: PartyResult['latency_ms']['rest'] = {};
    for (const route of [...rest.statuses.keys()].sort()) {
      const statuses = Object.fromEntries([...rest.statuses.get(route)!].map(([status, n]) => [String(status || 'no answer'), n]));
      restFigures[route] = { ...(rest.latency.get(route) ?? new Histogram()).summary(), statuses };
    }
    return {
      url: run.url,
      instances: run.instances,
      attendees: run.attendees,
      minutes: run.minutes,
      interrupted_after_s: run.interruptedAfter === null ? null : Math.round(run.interruptedAfter * 10) / 10,
      event: { id: run.event.id, code: run.event.code, join_mode: run.event.joinMode },
      stateFile: run.stateFile,
      counts: {
        check_ins: counts.checkIns,
        swipes: counts.swipes,
        likes: counts.likes,
        matches: counts.matches,
        reconnects: counts.reconnects,
        drops: counts.drops,
        server_disconnects: counts.serverDisconnects,
        offline_at_end: run.offlineAtEnd,
        messages: {
          sent: counts.sent,
          acknowledged: counts.acknowledged,
          delivered: counts.delivered,
          recovered: counts.recovered,
          lost,
          duplicated: counts.duplicated,
          unanswered,
          refused: counts.refused,
        },
        match_overlays: {
          expected: overlays.expected,
          delivered: overlays.delivered,
          recovered: overlays.recovered,
          lost: overlays.pending,
        },
        errors: Object.fromEntries([...this.errors].sort(([a], [b]) => a.localeCompare(b))),
      },
      latency_ms: {
        match_overlay: this.overlay.summary(),
        message_delivery: this.delivery.summary(),
        reconnect: this.reconnect.summary(),
        presence_list: this.presenceList.summary(),
        rest: restFigures,
      },
      tool,
      ok: lost === 0 && unanswered === 0 && counts.duplicated === 0 && overlays.pending === 0 && run.offlineAtEnd === 0,
    };
  }
}
