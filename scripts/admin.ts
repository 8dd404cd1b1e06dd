/**
 * Roles and bans, which nothing in the API can change:
 *
 *   npm run admin -- grant-moderator <email>
 *   npm run admin -- revoke-moderator <email>
 *   npm run admin -- unban <email>
 *
 * It works on the configured database (`DATABASE_URL`, or the embedded one under `DATA_DIR`). The
 * embedded database is held by one process at a time: with the server running on it, stop the server
 * first. `npm run admin` runs this file's bundle (scripts/run-admin.mjs), which the Docker image
 * holds too:
 *
 *   docker compose exec app1 npm run admin -- grant-moderator <email>
 */
import { pathToFileURL } from 'node:url';
import type { Db } from '../server/db/client';
import { type AdminOutcome, setRole, unban } from '../server/features/moderation/service';
import { createStripeClient } from '../server/features/payments/stripe-client';
import { openCommandDatabase } from './command-database';

const USAGE = 'Usage: npm run admin -- grant-moderator|revoke-moderator|unban <email>';
/** `--help`: the usage, and what each command does. */
const HELP = `${USAGE}
  grant-moderator <email>   make the account a moderator (the report queue at /app/moderation/)
  revoke-moderator <email>  make it a plain user again
  unban <email>             lift the account's ban
It works on DATABASE_URL's database, or on the embedded one in DATA_DIR (default ./data): stop a server
running on that one first.`;

type Command = {
  run: (db: Db, email: string, env: NodeJS.ProcessEnv, out: Pick<Console, 'error'>) => Promise<AdminOutcome>;
  /** What the account is now, said after its e-mail; and what it already was, when nothing changed. */
  changed: string;
  unchanged: string;
};

const COMMANDS = {
  'grant-moderator': {
    run: (db, email) => setRole(db, email, 'moderator'),
    changed: 'is now a moderator',
    unchanged: 'is already a moderator',
  },
  'revoke-moderator': {
    run: (db, email) => setRole(db, email, 'user'),
    changed: 'is no longer a moderator',
    unchanged: 'was not a moderator',
  },
  // A plan the ban stopped renews again: at Stripe, with the server's STRIPE_SECRET_KEY (and STRIPE_API_BASE).
  unban: {
    run: (db, email, env, out) =>
      unban(db, email, createStripeClient(stripeSettings(env)), { warn: (object, message) => out.error(message, object), error: (object, message) => out.error(message, object) }),
    changed: 'is no longer banned',
    unchanged: 'was not banned',
  },
} satisfies Record<string, Command>;

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
    return 0;
  } finally {
    await database.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await admin(process.argv.slice(2));
}
