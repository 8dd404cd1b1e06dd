/** A token bucket per socket and event kind: a burst is allowed, a sustained flood is not. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** Per socket. A person types and sends far below these; a runaway client or a script does not. */
export const SOCKET_LIMITS = {
  'message:send': { perSecond: 20, burst: 40 },
  'message:read': { perSecond: 10, burst: 20 },
  typing: { perSecond: 5, burst: 10 },
  // Asks every instance: a client needs it once per (re)connect.
  'presence:list': { perSecond: 1, burst: 5 },
} as const satisfies Record<string, RateLimit>;

export type LimitedEvent = keyof typeof SOCKET_LIMITS;

export class TokenBucket {
  private tokens: number;
  private updatedAt = performance.now();

  constructor(private readonly limit: RateLimit) {
    this.tokens = limit.burst;
  }

  /** Takes a token; returns false (and takes nothing) when the bucket is empty. */
  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.updatedAt) / 1000) * this.limit.perSecond);
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
