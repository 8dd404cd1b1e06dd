/**
 * Roles and bans, which nothing in the API can change:
 *
 *   npm run admin -- grant-moderator <email>
 *   npm run admin -- revoke-moderator <email>
 *   npm run admin -- unban <email>
 *   npm run admin -- log <email>
 *   npm run admin -- delete <email> --yes
 *
 * It works on the configured database (`DATABASE_URL`, or the embedded one under `DATA_DIR`). The
 * embedded database is held by one process at a time: with the server running on it, stop the server
 * first. `npm run admin` runs this file's bundle (scripts/run-admin.mjs), which the Docker image
 * holds too:
 *
 *   docker compose exec app1 npm run admin -- grant-moderator <email>
 */
import { pathToFileURL } from 'node:url';
import { eq } from 'drizzle-orm';
import { type Config, ConfigError, DEFAULT_REDIS_PREFIX, loadConfig } from '../server/config';
import type { Db } from '../server/db/client';
import { users } from '../server/db/schema';
import { announceDeletion, type DeletedAccount, eraseAccount } from '../server/features/account/deletion';
import { openMediaStores } from '../server/features/media/stores';
import { type AdminOutcome, type ModerationAction, moderationHistory, setRole, unban } from '../server/features/moderation/service';
import type { BillingLog } from '../server/features/payments/end-billing';
import { createStripeClient, PaymentsUnavailable } from '../server/features/payments/stripe-client';
import { erasureDelay } from '../server/plugins/analytics';
import { type InstancesNews, reachInstances } from '../server/realtime/outside';
import { openCommandDatabase } from './command-database';

const USAGE = 'Usage: npm run admin -- grant-moderator|revoke-moderator|unban|log <email>, or delete <email> --yes';
/** `--help`: the usage, and what each command does. */
const HELP = `${USAGE}
  grant-moderator <email>   make the account a moderator (the report queue at /app/moderation/)
  revoke-moderator <email>  make it a plain user again
  unban <email>             lift the account's ban
  log <email>               what moderators and these commands did about the account, and when, newest
                            first
  delete <email> --yes      delete the account and everything of it for good, as its owner can in the
                            app (for one who cannot sign in: banned, or without their e-mail); without
                            --yes it only says whether the account exists
It works on DATABASE_URL's database, or on the embedded one in DATA_DIR (default ./data): stop a server
running on that one first. With the servers' REDIS_URL (and REDIS_PREFIX), a deletion is told to the running
servers at once, as one in the app.`;

type Command = {
  run: (db: Db, email: string, env: NodeJS.ProcessEnv, out: Pick<Console, 'error'>) => Promise<AdminOutcome>;
  /** What the account is now, said after its e-mail; and what it already was, when nothing changed. */
  changed: string;
  unchanged: string;
  /**
   * The account's own open apps are told it changed (`account:changed`: they read it again), on every
   * running server, as the server tells them of a change made elsewhere; with the servers' Redis only.
   */
  tellsOwner?: true;
};

const COMMANDS = {
  'grant-moderator': {
    run: (db, email) => setRole(db, email, 'moderator'),
    changed: 'is now a moderator',
    unchanged: 'is already a moderator',
    // Their open app shows the moderation queue's way in at once.
    tellsOwner: true,
  },
  'revoke-moderator': {
    run: (db, email) => setRole(db, email, 'user'),
    changed: 'is no longer a moderator',
    unchanged: 'was not a moderator',
    tellsOwner: true,
  },
  // Nothing to tell: the ban ended every session of theirs, and no one is told of a person who can be
  // seen again (as after an unblock, the other side hears nothing).
  // A plan the ban stopped renews again: at Stripe, with the server's STRIPE_SECRET_KEY (and STRIPE_API_BASE).
  unban: {
    run: (db, email, env, out) =>
      unban(db, email, createStripeClient(stripeSettings(env)), billingLogOn(out)),
    changed: 'is no longer banned',
    unchanged: 'was not banned',
  },
} satisfies Record<string, Command>;

/** What billing has to tell the operator, on the command's standard error. */
const billingLogOn = (out: Pick<Console, 'error'>): BillingLog => ({
  warn: (object, message) => out.error(message, object),
  error: (object, message) => out.error(message, object),
});

/** The server's Stripe settings that a command calls Stripe with (`loadConfig`'s, read alone). */
const stripeSettings = (env: NodeJS.ProcessEnv) => ({
  secretKey: env.STRIPE_SECRET_KEY || null,
  apiBase: env.STRIPE_API_BASE || null,
});

/** Runs one command; returns the process's exit status. */
export async function admin(argv: string[], env: NodeJS.ProcessEnv = process.env, out = console): Promise<number> {
  const [name, given, ...rest] = argv;
  if (argv.length === 1 && (name === '--help' || name === '-h')) {
    out.log(HELP);
    return 0;
  }
  // As login takes it: pasted with a space or a line break around it, or in capitals.
  const email = given?.trim().toLowerCase();
  if (name === 'delete') {
    // The confirmation before or after the e-mail, as an operator may type it.
    const words = argv.slice(1).filter((word) => word !== '--yes');
    const address = words[0]?.trim().toLowerCase();
    if (words.length !== 1 || !address || address.startsWith('-')) {
      out.error(USAGE);
      return 2;
    }
    return deleteCommand(address, argv.includes('--yes'), env, out);
  }
  if (name === 'log' && email && rest.length === 0) return logCommand(email, env, out);
  const command = COMMANDS[name as keyof typeof COMMANDS];
  if (!command || !email || rest.length > 0) {
    out.error(USAGE);
    return 2;
  }
  const opened = await openCommandDatabase(env, out, { again: 'run this again (or set DATABASE_URL to work on PostgreSQL)', existing: true });
  if (typeof opened === 'number') return opened;
  const { database } = opened;
  try {
    const outcome = await command.run(database.db, email, env, out);
    if (outcome === null) {
      out.error(`No account with the e-mail ${email}.`);
      return 1;
    }
    out.log(`${email} ${command[outcome]}.`);
    if (outcome === 'changed' && 'tellsOwner' in command) await tellOwner(database.db, email, env, out);
    return 0;
  } finally {
    await database.close();
  }
}

/** One line of `log`: when (UTC), what, by whom, on which report. */
export const actionLine = (entry: ModerationAction) =>
  [
    entry.at.toISOString(),
    entry.action.replace('_', ' '),
    entry.moderator ? `by ${entry.moderator}` : entry.action === 'dismiss' || entry.action === 'ban' ? 'by a moderator since deleted' : 'by the admin command',
    ...(entry.reportId === null ? [] : [`on report #${entry.reportId}`]),
  ].join('  ');

/** `log <email>`: the account's moderation history (the `moderation_actions` table), newest first. */
async function logCommand(email: string, env: NodeJS.ProcessEnv, out: Pick<Console, 'log' | 'error'>): Promise<number> {
  const opened = await openCommandDatabase(env, out, { again: 'run this again (or set DATABASE_URL to work on PostgreSQL)', existing: true });
  if (typeof opened === 'number') return opened;
  const { database } = opened;
  try {
    const history = await moderationHistory(database.db, email);
    if (history === null) {
      out.error(`No account with the e-mail ${email}.`);
      return 1;
    }
    out.log(history.length === 0 ? `Nothing recorded about ${email}.` : history.map(actionLine).join('\n'));
    return 0;
  } finally {
    await database.close();
  }
}

/**
 * `account:changed` to the account's open apps on every running server, through the servers' Redis
 * (REDIS_URL and REDIS_PREFIX, `loadConfig`'s, read alone). Without it, said: an open app shows the
 * change when it next reads the account (back in view, or reconnected).
 */
async function tellOwner(db: Db, email: string, env: NodeJS.ProcessEnv, out: Pick<Console, 'error'>) {
  let news: InstancesNews | null = null;
  if (env.REDIS_URL) {
    try {
      news = await reachInstances({ url: env.REDIS_URL, prefix: env.REDIS_PREFIX || DEFAULT_REDIS_PREFIX });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
    }
  }
  const untold = untoldBecause(env.REDIS_URL || null, env.DATABASE_URL || null, news);
  if (!news) {
    if (untold) out.error(`${untold}; its open apps show it when they next read the account (back in view, or reconnected).`);
    return;
  }
  try {
    const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (user) news.publish([user.id], 'account:changed');
  } finally {
    await news.close();
  }
}

/**
 * Why the running servers were not told (`reachInstances` gave no `news`): no REDIS_URL, or Redis out
 * of reach. Null when they were, or when none can be running: on the embedded database (no
 * DATABASE_URL) the command holds the database, so no server runs beside it.
 */
function untoldBecause(redisUrl: string | null, databaseUrl: string | null, news: InstancesNews | null): string | null {
  if (news) return null;
  if (!redisUrl) return databaseUrl ? 'There is no REDIS_URL: a server running on this database was not told' : null;
  return 'Redis (REDIS_URL) could not be reached: the running servers were not told';
}

/**
 * `delete <email> --yes`: the account's deletion as `DELETE /api/users/me/` does it (`eraseAccount`), with
 * the server's settings from the environment: its Stripe billing ended, its photo files removed from
 * DATA_DIR's media folder or the S3 bucket, its PostHog person erased by the server's job once due.
 * Without `--yes`, nothing is deleted. With the servers' Redis (REDIS_URL), the running instances are told
 * as by a deletion in the app (`reachInstances`): its sessions end and its sockets drop everywhere once
 * the rows are gone, and its partners' apps hear it at once. Without it no running server hears of it: what
 * it then does is said after the deletion (`untold`), as docs/operations.md says.
 */
async function deleteCommand(email: string, confirmed: boolean, env: NodeJS.ProcessEnv, out: Pick<Console, 'log' | 'error'>): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    out.error(`Configuration error: ${error.message}`);
    return 1;
  }
  const opened = await openCommandDatabase(env, out, { again: 'run this again (or set DATABASE_URL to work on PostgreSQL)', existing: true });
  if (typeof opened === 'number') return opened;
  const { database } = opened;
  let news: InstancesNews | null = null;
  /** Whether every running instance said it had dropped the account's sessions (none to say it without Redis). */
  let heard = false;
  const media = await openMediaStores(config);
  try {
    const [user] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (!user) {
      out.error(`No account with the e-mail ${email}.`);
      return 1;
    }
    if (!confirmed) {
      out.error(`${email} has an account. To delete it and everything of it for good: npm run admin -- delete ${email} --yes`);
      return 2;
    }
    if (config.redisUrl) {
      try {
        news = await reachInstances({ url: config.redisUrl, prefix: config.redisPrefix });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        out.error(`Configuration error: ${error.message}`);
        return 1;
      }
    }
    const stripe = createStripeClient(config.stripe);
    const reached = news;
    const told = reached && {
      // As the server's deletion: once the rows are gone, its open phones told why (`account:deleted`),
      // then every instance forgets its sessions and drops their sockets.
      endSessions: async (userId: number, tokenHashes: string[]) => {
        reached.publish([userId], 'account:deleted');
        heard = await reached.revoked(tokenHashes);
      },
      announce: (userId: number, gone: DeletedAccount) =>
        announceDeletion({ publish: reached.publish, left: (user, eventId) => reached.moved({ userId: user, from: eventId, to: null }) }, userId, gone),
    };
    try {
      const deleted = await eraseAccount(
        { db: database.db, stripe, media: media.media, log: billingLogOn(out), postHogErasure: erasureDelay(config.posthog), byAdmin: true, ...told },
        user.id,
      );
      // Deleted meanwhile, by its owner in the app.
      if (!deleted) {
        out.error(`No account with the e-mail ${email}.`);
        return 1;
      }
    } catch (error) {
      if (!(error instanceof PaymentsUnavailable)) throw error;
      out.error(`${email} is not deleted: Stripe could not be reached to end its billing. Run this again.`);
      return 1;
    }
    await news?.close();
    out.log(`${email} is deleted, with everything of it.`);
    const notReached = untoldBecause(config.redisUrl, config.databaseUrl, news);
    const untold = notReached ? `${notReached}.` : news && !heard && 'Not every running server confirmed in time that its sessions had ended.';
    if (untold) {
      out.error(
        `${untold} There its sessions are refused within 10 s and its open apps closed within a minute; ` +
          'its partners’ apps find it gone at their next request.',
      );
    }
    return 0;
  } finally {
    await news?.close();
    await media.close();
    await database.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await admin(process.argv.slice(2));
}
