import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { REDIS_COMMAND_TIMEOUT_MS, type Redis, withTimeout } from './redis';

export interface CounterResult {
  /** True once the key has been hit more than `max` times in the current window. */
  exceeded: boolean;
  /** Until the window ends. */
  retryAfterMs: number;
}

/**
 * Fixed-window counters, the store behind `limits.ts`: one hit per attempt, the window starting at a
 * key's first hit.
 */
export interface Counters {
  hit(key: string, max: number, windowMs: number): Promise<CounterResult>;
  /**
   * One hit for each key, in order, in one step (one Redis call for them all); a key may come more
   * than once. The answers are in the keys' order.
   */
  hitEach(keys: readonly string[], max: number, windowMs: number): Promise<CounterResult[]>;
  /**
   * Takes one hit back from a key's window, if it has one left to give (an honest retry of what was
   * already counted: a reaction resent after its answer was lost).
   */
  unhit(key: string): Promise<void>;
  /** The hits in a key's current window, counting none (a limit read before what it counts is known). */
  count(key: string): Promise<number>;
  /** Forgets a key's window (a password reset clears the login throttle of its account). */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Counters in this process: right for one instance, and the fallback while Redis is away. */
export function memoryCounters(): Counters {
  const windows = new Map<string, { count: number; resetAt: number }>();
  // Expired windows are swept now and then, so that a flood of distinct keys cannot grow the map forever.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  }, 60_000);
  sweep.unref();
  const hit = (key: string, max: number, windowMs: number): CounterResult => {
    const now = Date.now();
    let window = windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      windows.set(key, window);
    }
    window.count += 1;
    return { exceeded: window.count > max, retryAfterMs: window.resetAt - now };
  };
  return {
    hit: async (key, max, windowMs) => hit(key, max, windowMs),
    hitEach: async (keys, max, windowMs) => keys.map((key) => hit(key, max, windowMs)),
    async unhit(key) {
      const window = windows.get(key);
      if (window && window.count > 0 && window.resetAt > Date.now()) window.count -= 1;
    },
    async count(key) {
      const window = windows.get(key);
      return window && window.resetAt > Date.now() ? window.count : 0;
    },
    async reset(key) {
      windows.delete(key);
    },
    async close() {
      clearInterval(sweep);
      windows.clear();
    },
  };
}

/**
 * For each key in turn, INCR and, on its first hit, PEXPIRE, all in one step; returns each key's count
 * and its window's time left, one pair after the other. One key or a batch's worth (a batch of message
 * sends is throttled in one call): the same script, so one SHA1.
 */
const HIT_SCRIPT = `
local replies = {}
for _, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then redis.call('PEXPIRE', key, ARGV[1]); ttl = tonumber(ARGV[1]) end
  replies[#replies + 1] = count
  replies[#replies + 1] = ttl
end
return replies
`;
/**
 * The script goes by its SHA1 (EVALSHA): EVAL would send its text with every hit, and Redis would hash
 * that text again every time to find the compiled script. A Redis that does not know it yet (a restart,
 * a SCRIPT FLUSH) answers NOSCRIPT, and that hit goes by EVAL, which loads it for the next ones.
 */
const HIT_SCRIPT_SHA = createHash('sha1').update(HIT_SCRIPT).digest('hex');
const isNoScript = (error: unknown) => error instanceof Error && error.message.startsWith('NOSCRIPT');

/** DECR only a key that holds hits: DECR alone would make a missing key -1, with no expiry. */
const UNHIT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

const ERROR_LOG_INTERVAL_MS = 10_000;
const HASHED_KEYS_KEPT = 10_000;

/**
 * Counters in Redis, shared by every instance: an account gets the same number of attempts however
 * many instances they are spread over. Keys are hashed (no e-mail is written to Redis). While Redis is
 * unreachable each instance counts on its own rather than refusing everything.
 */
export function redisCounters(options: { redis: Redis; log: FastifyBaseLogger }): Counters {
  const fallback = memoryCounters();
  const client = options.redis.commands;
  let lastLogged = 0;
  const warn = (error: unknown) => {
    if (Date.now() - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    options.log.warn({ err: error }, 'redis unavailable: rate limits count per instance until it is back');
  };
  /**
   * The hashed keys of recent hits: a user's sends hit the same key every time, and hashing it again
   * was a measurable part of a message's cost with two instances. Cleared whole when full.
   */
  const hashed = new Map<string, string>();
  const redisKey = (key: string) => {
    let found = hashed.get(key);
    if (found === undefined) {
      if (hashed.size >= HASHED_KEYS_KEPT) hashed.clear();
      found = `${options.redis.prefix}:throttle:${createHash('sha256').update(key).digest('base64url')}`;
      hashed.set(key, found);
    }
    return found;
  };

  // Until Redis is ready the fallback counts.
  const hitEach = async (keys: readonly string[], max: number, windowMs: number): Promise<CounterResult[]> => {
    if (keys.length === 0) return [];
    if (!client.isReady) return fallback.hitEach(keys, max, windowMs);
    try {
      const options = { keys: keys.map(redisKey), arguments: [String(windowMs)] };
      const reply = (await withTimeout(
        client.evalSha(HIT_SCRIPT_SHA, options).catch((error: unknown) => {
          if (isNoScript(error)) return client.eval(HIT_SCRIPT, options);
          throw error;
        }),
        REDIS_COMMAND_TIMEOUT_MS,
        'EVALSHA',
      )) as number[];
      return keys.map((_, index) => ({ exceeded: reply[2 * index]! > max, retryAfterMs: reply[2 * index + 1]! }));
    } catch (error) {
      warn(error);
      return fallback.hitEach(keys, max, windowMs);
    }
  };

  return {
    hit: async (key, max, windowMs) => (await hitEach([key], max, windowMs))[0]!,
    hitEach,
    async unhit(key) {
      // The hit was counted where it was: in Redis, or in the fallback while Redis was away.
      if (!client.isReady) return fallback.unhit(key);
      await withTimeout(client.eval(UNHIT_SCRIPT, { keys: [redisKey(key)] }), REDIS_COMMAND_TIMEOUT_MS, 'EVAL').catch(warn);
    },
    async count(key) {
      if (!client.isReady) return fallback.count(key);
      try {
        return Number((await withTimeout(client.get(redisKey(key)), REDIS_COMMAND_TIMEOUT_MS, 'GET')) ?? 0);
      } catch (error) {
        warn(error);
        return fallback.count(key);
      }
    },
    async reset(key) {
      await fallback.reset(key);
      if (client.isReady) await withTimeout(client.del(redisKey(key)), REDIS_COMMAND_TIMEOUT_MS, 'DEL').catch(warn);
    },
    // The connection is the Redis plugin's to close.
    close: () => fallback.close(),
  };
}
