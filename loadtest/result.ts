/**
 * What a party gives to whoever runs it: its live figures while it runs (`Progress`), and its result
 * (`PartyResult`), which `--json` writes as it is.
 */
import type { Histogram } from './histogram';

export interface Progress {
  phase: 'setup' | 'connect' | 'check-in' | 'party' | 'drain';
  elapsedSeconds: number;
  attendees: number;
  ready: number;
  connected: number;
  checkIns: number;
  swipes: number;
  matches: number;
  messagesSent: number;
  messagesDelivered: number;
  errors: number;
  /** p99 over the last few seconds, ms (null: nothing in that window). */
  recentP99: { matchOverlay: number | null; messageDelivery: number | null; rest: number | null };
}

type Summary = ReturnType<Histogram['summary']>;

export interface PartyResult {
  url: string;
  instances: string[];
  attendees: number;
  minutes: number;
  /** When the party was ended early (`signal`): how long it had lasted, s; null when it ran its length. */
  interrupted_after_s: number | null;
  event: { id: number; code: string; join_mode: 'qr' | 'code' };
  stateFile: string;
  counts: {
    check_ins: number;
    swipes: number;
    likes: number;
    matches: number;
    reconnects: number;
    /**
     * Sockets the server or the network dropped (not the deliberate leaves), or that a phone gave up as
     * dead when a send or a `presence:list` went unanswered too long (`… no answer` among the errors),
     * reconnected on their own.
     */
    drops: number;
    /**
     * Of the drops, those the server disconnected itself (a restart or drain that disconnects the
     * sockets, a revoked token): socket.io-client leaves these down, the app connects again (and so do
     * these phones).
     */
    server_disconnects: number;
    /**
     * Phones at the party (or on their way in) whose socket was still down when the drain ended: the
     * server gone, or refusing them. What was meant for them is unconfirmed, and the run is no pass.
     */
    offline_at_end: number;
    messages: { sent: number; acknowledged: number; delivered: number; recovered: number; lost: number; duplicated: number; unanswered: number; refused: number };
    match_overlays: { expected: number; delivered: number; recovered: number; lost: number };
    errors: Record<string, number>;
  };
  latency_ms: {
    match_overlay: Summary;
    message_delivery: Summary;
    reconnect: Summary;
    /** `presence:list`, asked at every connect as the app asks it: who of the matches is online. */
    presence_list: Summary;
    rest: Record<string, Summary & { statuses: Record<string, number> }>;
  };
  tool: {
    cpu_seconds: number;
    /** Socket frames in and out plus REST calls during the party. */
    operations: number;
    cpu_us_per_operation: number;
    /** CPU per chat message sent, everything the tool did during the party included (null: none sent). */
    cpu_us_per_message: number | null;
    /** Measured after everyone has connected and checked in; null when they arrive during the party. */
    heap_kb_per_attendee: number | null;
    rss_mb: number;
    /**
     * The tool's own event-loop delay during the party: every latency above is timed on this loop, so
     * a delay here is in them too. Well under the latencies, the figures are the server's.
     */
    event_loop_delay_ms: { p99: number; max: number };
    /**
     * How long the party's REST calls waited for a connection of the tool's pool (`maxSockets` per
     * instance): a wait no phone has, in the REST latencies and the match overlay. Phones with
     * connections of their own moved the wait into the server, and cost the tool more (bench/README.md).
     */
    rest_pool_wait_ms: { p99: number; max: number };
  };
  ok: boolean;
}
