import { isIP } from 'node:net';
import path from 'node:path';
import { DECK_REFRESH_INTERVAL_MS, EVENT_COUNT_INTERVAL_MS } from '../shared/constants';

/** A setting the process cannot start with: `main.ts` says which, and exits. */
export class ConfigError extends Error {}

/**
 * How subscriptions are sold. `stripe`: real Stripe Checkout. `test`: a clearly labelled local
 * checkout that charges nothing (development, demos). `off`: no checkout at all; the subscribe page
 * says payments are not configured.
 */
export const CHECKOUT_MODES = ['stripe', 'test', 'off'] as const;
export type CheckoutMode = (typeof CHECKOUT_MODES)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL via postgres.js when set; embedded PGlite under `dataDir/db` when not. */
  databaseUrl: string | null;
  /** The main pool's connections on PostgreSQL, per instance (`DATABASE_POOL_SIZE`); the deck's two pools take a fifth of it each. */
  databasePoolSize: number;
  redisUrl: string | null;
  /** Prefix of the Redis pub/sub channels, so that several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  /** The address users reach; null: this server's own once it listens (`http://localhost:<port>` on 0.0.0.0). */
  publicUrl: string | null;
  /** Built client to serve; null serves a plain notice (API-only tests). */
  clientDir: string | null;
  logLevel: string;
  /**
   * Whose X-Forwarded-For to believe (Fastify's `trustProxy`): the client address that per-IP
   * throttling counts. Only loopback by default, so a client reaching the server directly cannot
   * pick its own address; behind a proxy elsewhere, name it (`TRUST_PROXY=10.0.0.5`, or CIDRs).
   */
  trustProxy: boolean | string;
  /**
   * The sites that may show the app in a frame (`EMBED_ORIGINS`), beside this one: its pages' Back
   * buttons then tell the page around them (`postMessage('back')`). None by default: a sign-in page
   * that any site could frame could be clicked through from under a decoy.
   */
  embedOrigins: string[];
  /**
   * Seals cursors and join passes; every instance of a deployment must share it. Unset: one is made
   * once and kept in the database.
   */
  secretKey: string | null;
  argon2: { memoryCost: number; timeCost: number };
  loginThrottle: { perIp: number; perAccount: number; windowMs: number };
  /**
   * How long an instance trusts a token it has read without reading it again (10 s; tests shorten it).
   * Revocations reach every instance at once through realtime; this bounds one whose news could not
   * travel (Redis away).
   */
  tokenTrustMs: number;
  /**
   * How long a request may take to arrive whole, headers and body (5 min; tests shorten it): a phone
   * sending its photos over a party's crowded Wi-Fi has the time, a body trickled in to hold a
   * connection open does not hold it for ever (docs/operations.md, "Slow requests").
   */
  requestTimeoutMs: number;
  /**
   * How long `/readyz` waits for each check (2 s; tests shorten it): one that has not answered by
   * then counts as failing, so that a hung database does not hang the probe.
   */
  readinessTimeoutMs: number;
  /** Rows of `limitRules` replaced (tests); see `server/lib/limits.ts`. */
  limits: Partial<Record<string, { max: number; windowMs: number }>>;
  /**
   * Every per-user limit multiplied by this (`RATE_LIMIT_MULTIPLIER`): benchmarks that push thousands of
   * messages a second through a few hundred users, never production.
   */
  limitMultiplier: number;
  /**
   * The least time between two `event:count`s to an event's room (1 s), and between two of its
   * `deck:refresh`es (5 s, which the phones spread their fetches over); tests shorten them, so that
   * waiting a window out does not cost them seconds.
   */
  eventCountIntervalMs: number;
  deckRefreshIntervalMs: number;
  /**
   * The most deck fetches per second that one event's `deck:refresh` may set off on one instance
   * (`DECK_REFRESH_FETCHES_PER_SECOND`): past it, a big event's refreshes come less often than every 5 s.
   */
  deckRefreshFetchesPerSecond: number;
  /**
   * How often an instance behind Redis tells the others it is alive (10 s): three beats missed, and the
   * first to notice says its users offline (server/realtime/presence-roll.ts). Tests shorten it.
   */
  presenceBeatMs: number;
  checkoutMode: CheckoutMode;
  stripe: {
    secretKey: string | null;
    webhookSecret: string | null;
    apiBase: string | null;
    lookupKeys: { monthly: string; yearly: string };
  };
  google: {
    clientId: string | null;
    userInfoUrl: string;
    /** Says which app an access token was issued to: a token made for another app is refused. */
    tokenInfoUrl: string;
    /** How long a sign-in waits on Google, both questions together (10 s; tests shorten it). */
    timeoutMs?: number;
  };
  mail: {
    /** `smtp://user:pass@host:587` (or `smtps://`): a real server. Unset: `.eml` files in `dataDir/outbox/`. */
    smtpUrl: string | null;
    /** The sender of every e-mail. */
    from: string;
  };
  /** PostHog forwarding of the first-party analytics events, keyed by user id only; off without a key. */
  posthog: {
    key: string | null;
    host: string;
    /**
     * How long one attempt to send a batch of events may take, from its check for deleted accounts on
     * (10 s, the SDK's own timeout; tests shorten it): one not through by then is abandoned, and tried
     * again, checked again. A deleted account's erasure waits twice this after the deletion, so that no
     * batch checked before the deletion reaches PostHog after the erasure.
     */
    sendTimeoutMs: number;
    /**
     * PostHog's private API, with which a deleted account's person and events are deleted there too
     * (`POSTHOG_PERSONAL_API_KEY`, `POSTHOG_PROJECT_ID`): the project key above can only send events.
     * Null: they stay in PostHog, under the user id of an account that no longer exists.
     */
    erasure: { personalApiKey: string; projectId: string; apiHost: string } | null;
  };
  /**
   * An S3-compatible bucket for photos and report evidence (`S3_BUCKET`), which every instance on every
   * machine shares; null keeps them under `dataDir` (one machine, or a volume its instances share).
   */
  s3: {
    bucket: string;
    /** Another service than AWS (MinIO, R2, Garage…); null: AWS's own endpoint for the region. */
    endpoint: string | null;
    region: string;
    /** `bucket.host/key` or `host/bucket/key`: most S3-compatible services want the path. */
    forcePathStyle: boolean;
    /** Null: the AWS SDK's own chain (AWS_ACCESS_KEY_ID…, a profile, an instance role). */
    credentials: { accessKeyId: string; secretAccessKey: string } | null;
  } | null;
}

type Env = Record<string, string | undefined>;

/** `TRUST_PROXY`'s named ranges (proxy-addr's). */
const TRUST_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];

/** `TRUST_PROXY`: true, false, or named ranges, addresses and CIDRs by commas, as proxy-addr reads them. */
function trustProxy(value: string | undefined): boolean | string {
  const text = value?.trim() || 'loopback';
  if (text === 'true' || text === 'false') return text === 'true';
  for (const word of text.split(/\s*,\s*/)) {
    const [address = '', range, ...more] = word.split('/');
    const version = isIP(address);
    const bits = version === 4 ? 32 : 128;
    const validRange = range === undefined || (/^\d+$/.test(range) && Number(range) <= bits) || isIP(range) === version;
    if (!TRUST_PRESETS.includes(word) && !(version && validRange && more.length === 0)) {
      throw new ConfigError(`TRUST_PROXY must be true, false, or ${TRUST_PRESETS.join(', ')}, addresses and CIDRs separated by commas, not "${word}".`);
    }
  }
  return text;
}

/** A whole-number setting: its fallback when unset or empty; a `ConfigError` for anything else than digits. */
function int(env: Env, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a whole number, not "${text}".`);
  return Number(text);
}

/** The main pool's connections on PostgreSQL when `DATABASE_POOL_SIZE` does not say (postgres.js's own default). */
export const DEFAULT_POOL_SIZE = 10;

/** `DATABASE_POOL_SIZE`: at least one connection. */
function poolSize(env: Env): number {
  const size = int(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE);
  if (size < 1) throw new ConfigError('DATABASE_POOL_SIZE must be at least 1.');
  return size;
}

/**
 * `DATABASE_URL`: a PostgreSQL address, as postgres.js reads it (a WHATWG URL); null when unset. Not
 * repeated in the error: it may carry a password.
 */
export function databaseUrl(env: Env): string | null {
  const text = env.DATABASE_URL?.trim();
  if (!text) return null;
  let protocol: string | null = null;
  try {
    protocol = new URL(text).protocol;
  } catch {}
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL must be a PostgreSQL address such as postgres://user:password@host:5432/eventmatch.');
  }
  return text;
}

/**
 * `SMTP_URL`: the mail server, as nodemailer reads it; null when unset. nodemailer takes anything
 * (`mail.example.com:587` becomes the host 0.0.2.75, a word becomes localhost), and every e-mail
 * then fails, one user at a time: refused here instead. Not repeated in the error: it may carry a password.
 */
export function smtpUrl(env: Env): string | null {
  const text = env.SMTP_URL?.trim();
  if (!text) return null;
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {}
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    throw new ConfigError('SMTP_URL must be a mail server’s address such as smtp://user:password@host:587 (or smtps://).');
  }
  return text;
}

/** `POSTHOG_*`: where events go, and how a deleted account's are deleted there (both settings or neither). */
function posthog(env: Env): Config['posthog'] {
  const host = (env.POSTHOG_HOST || 'https://us.i.posthog.com').replace(/\/+$/, '');
  const personalApiKey = env.POSTHOG_PERSONAL_API_KEY?.trim() || null;
  const projectId = env.POSTHOG_PROJECT_ID?.trim() || null;
  if (!personalApiKey !== !projectId) throw new ConfigError('POSTHOG_PERSONAL_API_KEY and POSTHOG_PROJECT_ID go together.');
  return {
    key: env.POSTHOG_KEY || null,
    host,
    sendTimeoutMs: 10_000,
    erasure:
      personalApiKey && projectId
        ? {
            personalApiKey,
            projectId,
            // PostHog Cloud takes events at us.i.posthog.com and answers its API at us.posthog.com (eu alike);
            // a self-hosted PostHog answers both at one address.
            apiHost: httpUrl(env, 'POSTHOG_API_HOST', 'https://eu.posthog.com') ?? host.replace(/^https:\/\/(us|eu)\.i\.posthog\.com$/, 'https://$1.posthog.com'),
          }
        : null,
  };
}

/** `PUBLIC_URL`: the address users reach; null when unset. */
const publicUrl = (env: Env) => httpUrl(env, 'PUBLIC_URL', 'https://party.example.com');

/** An absolute http(s) address in `name`, its trailing slashes dropped; null when unset. */
function httpUrl(env: Env, name: string, example: string): string | null {
  const text = env[name]?.trim();
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name} must be an absolute address such as ${example}, not "${text}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must start with http:// or https://, not "${text}".`);
  }
  return text.replace(/\/+$/, '');
}

/** `EMBED_ORIGINS`: origins (`https://venue.example`, no path), separated by commas or spaces. */
function embedOrigins(env: Env): string[] {
  const words = (env.EMBED_ORIGINS ?? '').split(/[\s,]+/).filter(Boolean);
  return words.map((word) => {
    let url: URL | null = null;
    try {
      url = new URL(word);
    } catch {}
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== word.replace(/\/+$/, '')) {
      throw new ConfigError(`EMBED_ORIGINS must list origins such as https://venue.example (no path), not "${word}".`);
    }
    return url.origin;
  });
}

/** pino's levels, `LOG_LEVEL`'s choices. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `LOG_LEVEL`: one of pino's levels; `info` when unset or empty. */
function logLevel(env: Env): string {
  const text = env.LOG_LEVEL?.trim();
  if (!text) return 'info';
  if (!LOG_LEVELS.includes(text)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${text}".`);
  return text;
}

/** A yes/no setting: its fallback when unset or empty. */
function flag(env: Env, name: string, fallback: boolean): boolean {
  const text = env[name]?.trim().toLowerCase();
  if (!text) return fallback;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new ConfigError(`${name} must be true or false, not "${text}".`);
}

/** The photo bucket, when `S3_BUCKET` names one. */
function s3(env: Env): Config['s3'] {
  const bucket = env.S3_BUCKET?.trim();
  const endpoint = httpUrl(env, 'S3_ENDPOINT', 'http://minio:9000');
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY?.trim();
  if (!bucket) {
    if (endpoint || accessKeyId || secretAccessKey) throw new ConfigError('S3_ENDPOINT and S3_ACCESS_KEY_ID need S3_BUCKET.');
    return null;
  }
  if (!accessKeyId !== !secretAccessKey) throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together.');
  return {
    bucket,
    endpoint,
    region: env.S3_REGION?.trim() || 'us-east-1',
    forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE', endpoint !== null),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null,
  };
}

/**
 * `CHECKOUT_MODE` when named; otherwise Stripe when it has a key, and the test checkout — except in
 * production, where a checkout that grants plans for free must be asked for by name.
 */
function checkoutMode(env: Env): CheckoutMode {
  const named = env.CHECKOUT_MODE?.trim();
  if (named) {
    if (!(CHECKOUT_MODES as readonly string[]).includes(named)) {
      throw new ConfigError(`CHECKOUT_MODE must be one of ${CHECKOUT_MODES.join(', ')}, not "${named}".`);
    }
    if (named === 'stripe' && !env.STRIPE_SECRET_KEY) throw new ConfigError('CHECKOUT_MODE=stripe needs STRIPE_SECRET_KEY.');
    return named as CheckoutMode;
  }
  if (env.STRIPE_SECRET_KEY) return 'stripe';
  return env.NODE_ENV === 'production' ? 'off' : 'test';
}

/** The keys' and channels' prefix in Redis when REDIS_PREFIX does not say: the admin command's too. */
export const DEFAULT_REDIS_PREFIX = 'eventmatch';

/** The whole configuration, from the environment of docs/operations.md. Throws `ConfigError` for a setting it cannot use. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000);
  if (port > 65_535) throw new ConfigError(`PORT must be at most 65535, not ${port}.`);
  const publicAddress = publicUrl(env);
  const dataDir = path.resolve(env.DATA_DIR ?? './data');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    databaseUrl: databaseUrl(env),
    databasePoolSize: poolSize(env),
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || DEFAULT_REDIS_PREFIX,
    publicUrl: publicAddress,
    clientDir: path.resolve(env.CLIENT_DIR ?? './dist/client'),
    logLevel: logLevel(env),
    trustProxy: trustProxy(env.TRUST_PROXY),
    embedOrigins: embedOrigins(env),
    secretKey: env.SECRET_KEY || null,
    // OWASP's argon2id baseline: 19 MiB, 2 iterations.
    argon2: { memoryCost: int(env, 'ARGON2_MEMORY_KIB', 19_456), timeCost: int(env, 'ARGON2_TIME_COST', 2) },
    loginThrottle: {
      perIp: int(env, 'LOGIN_THROTTLE_PER_IP', 30),
      perAccount: int(env, 'LOGIN_THROTTLE_PER_ACCOUNT', 10),
      windowMs: int(env, 'LOGIN_THROTTLE_WINDOW_MS', 60_000),
    },
    tokenTrustMs: 10_000,
    requestTimeoutMs: 300_000,
    readinessTimeoutMs: 2000,
    limits: {},
    limitMultiplier: Math.max(1, int(env, 'RATE_LIMIT_MULTIPLIER', 1)),
    eventCountIntervalMs: EVENT_COUNT_INTERVAL_MS,
    deckRefreshIntervalMs: DECK_REFRESH_INTERVAL_MS,
    deckRefreshFetchesPerSecond: Math.max(1, int(env, 'DECK_REFRESH_FETCHES_PER_SECOND', 50)),
    presenceBeatMs: 10_000,
    checkoutMode: checkoutMode(env),
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY || null,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || null,
      apiBase: env.STRIPE_API_BASE || null,
      lookupKeys: {
        monthly: env.STRIPE_LOOKUP_KEY_MONTHLY || 'basic_monthly',
        yearly: env.STRIPE_LOOKUP_KEY_YEARLY || 'basic_yearly',
      },
    },
    google: {
      clientId: env.GOOGLE_CLIENT_ID || null,
      userInfoUrl: env.GOOGLE_USERINFO_URL || 'https://www.googleapis.com/oauth2/v3/userinfo',
      tokenInfoUrl: env.GOOGLE_TOKENINFO_URL || 'https://oauth2.googleapis.com/tokeninfo',
    },
    mail: {
      smtpUrl: smtpUrl(env),
      from: env.MAIL_FROM || `Eventmatch <no-reply@${publicAddress ? new URL(publicAddress).hostname : 'localhost'}>`,
    },
    posthog: posthog(env),
    s3: s3(env),
  };
}
