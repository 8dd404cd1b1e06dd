import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { EVENTS_CREATED_PER_DAY, JOIN_PASS_MINUTES } from '../../shared/constants';
import type { Config } from '../config';
import { Throttled } from '../errors';
import type { CounterResult, Counters } from './counters';

export interface LimitRule {
  max: number;
  windowMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Every limit on what one user (or, signed out, one address) may do, in one table. Features add
 * their own rows here; `max` is per window, per subject.
 */
export function limitRules(config: Pick<Config, 'loginThrottle' | 'limits' | 'limitMultiplier'>) {
  const login = config.loginThrottle;
  const rules = {
    // Sign-in: per address once the body is read, then per (account, address) once it names an
    // account. Never per account alone: a stranger's guesses must not lock the owner out.
    'login:ip': { max: login.perIp, windowMs: login.windowMs },
    'login:account-ip': { max: login.perAccount, windowMs: login.windowMs },
    'register:ip': { max: login.perIp, windowMs: login.windowMs },
    'google-login:ip': { max: login.perIp, windowMs: login.windowMs },
    // The same ways in carrying a current join pass of an open event whose organizer's e-mail is
    // verified (`auth/door-limit.ts`): per event instead of per address, the venue's crowd being behind
    // its one Wi-Fi address. Sized for the doors-open minute of 1,000 phones, each signing up then in,
    // once or twice; the per (account, address) login limit still holds, and the budget lasts only
    // while the event is open.
    'login:event': { max: 2000, windowMs: MINUTE },
    'register:event': { max: 2000, windowMs: MINUTE },
    'google-login:event': { max: 2000, windowMs: MINUTE },
    // One pass's uses of those three, for its life: a phone signs up and in, with a mistyped password or
    // two; past this, the pass counts per address like none.
    'door:pass': { max: 10, windowMs: JOIN_PASS_MINUTES * MINUTE },
    // Logins let in by a pass that then failed (no such account, or a wrong password), per address: the
    // doors-open minute's typos, one newcomer in twenty mistyping the password they just chose, with
    // room to spare. Past them, a pass no longer lifts that address's logins: one password tried across
    // thousands of accounts (each try a password hash of our CPU) meets the address's 30 like any other.
    'login:door-miss:ip': { max: 60, windowMs: MINUTE },
    // Each checkout or portal session creates objects at Stripe: per person signed in (a venue's crowd
    // shares one address), per address otherwise.
    checkout: { max: login.perIp, windowMs: login.windowMs },
    'checkout:ip': { max: login.perIp, windowMs: login.windowMs },
    // Message sends, REST and socket together.
    'message:send': { max: 30, windowMs: 10 * SECOND },
    // Resends of a message stored already (a phone sending its queue again after a connection lost
    // with the answers), answered with it and given back to `message:send`: as many as the sends when
    // honest, and on a flaky network a few times more; past them, a resend costs a send.
    'message:resend': { max: 90, windowMs: 10 * SECOND },
    'message:read': { max: 100, windowMs: 10 * SECOND },
    typing: { max: 50, windowMs: 10 * SECOND },
    'match:seen': { max: 30, windowMs: 10 * SECOND },
    // Asks every instance: a client needs it once per (re)connect.
    'presence:list': { max: 10, windowMs: 10 * SECOND },
    reaction: { max: 120, windowMs: MINUTE },
    // Retries of a stored reaction, whose hit `reaction` gives back: one per reaction when honest, so as
    // many as the reactions; past them, a retry costs a reaction like any other (a script resending one
    // stored reaction is not to get requests without end).
    'reaction:retry': { max: 120, windowMs: MINUTE },
    'profile:view': { max: 300, windowMs: HOUR },
    // Blocks, every attempt counted: a block answers 204 for a person and 404 for an id that is none,
    // which without a bound would tell a script which ids are people, past the profile views' limit.
    // Far above what anyone blocks by hand in an hour.
    block: { max: 100, windowMs: HOUR },
    upload: { max: 60, windowMs: HOUR },
    // Smaller copies of photos made on request, 20–40 ms of a core each, per address: a venue's crowd
    // behind one address needs each face made once (then kept in memory), well under this. Past it,
    // the photo itself is sent, which costs no work to make.
    'media:copy:ip': { max: 600, windowMs: MINUTE },
    // The one JSON body that may be large (six photos inline): parsed before anything can refuse it.
    'profile:save': { max: 60, windowMs: HOUR },
    // Quotas on what a user makes (reports, events) are counted once the body is valid (the routes'
    // `preHandler`): a form sent with a mistake is answered 400 and costs nothing. A report is counted
    // by its service, as a new one or as an addition to the reporter's open report of the person.
    report: { max: 10, windowMs: DAY },
    // Additions to a reporter's open report (a second report of the same person): outside the day's
    // reports, so that adding to one never costs a new one, but bounded all the same, each kept in the
    // report for its moderator to read.
    'report:addition': { max: 10, windowMs: DAY },
    // The same report sent again (a double tap, an answer lost): it adds nothing, yet each is a
    // transaction that blocks again; bounded apart, so that a retry never costs a report or an addition.
    'report:repeat': { max: 10, windowMs: DAY },
    // Events. Check-ins are per person (signed in), however many share the venue's address.
    'event:create': { max: EVENTS_CREATED_PER_DAY, windowMs: DAY },
    'event:check-in': { max: 30, windowMs: HOUR },
    // Each change goes out to everyone in the room.
    'event:update': { max: 60, windowMs: HOUR },
    // The event page (`GET /api/events/{code}/`): it asks again for the count twice a minute. Signed
    // in, per person; signed out, per address, and a venue's Wi-Fi puts its whole crowd behind one:
    // the doors-open minute of 1,000 phones, each opening the page and watching it, and
    // still far too few to walk 31^6 codes (0.5 % of them a day).
    'event:lookup': { max: 60, windowMs: MINUTE },
    'event:lookup:ip': { max: 3000, windowMs: MINUTE },
    // The scan's pass, asked before any sign-in: per address, one or two per phone of that minute.
    'event:pass:ip': { max: 2000, windowMs: MINUTE },
    // A host screen watches once per (re)connect.
    'event:watch': { max: 30, windowMs: MINUTE },
    // Account: each of these sends an e-mail or builds an archive.
    'verify-email:resend': { max: 5, windowMs: HOUR },
    // Every try, sent or not: a link the mail server did not take is given back to the five above, so
    // while it is down, these are all that bound a script's tries (each one a connection to it).
    'verify-email:attempt': { max: 20, windowMs: HOUR },
    'password-reset:email': { max: 5, windowMs: HOUR },
    'password-reset:ip': { max: 20, windowMs: HOUR },
    // Links opened (verify, reset and its page's check): the tokens cannot be guessed; this bounds the
    // work of trying. A link that works is given back (the account's routes): a venue's crowd opens
    // theirs behind one address.
    'email-link:ip': { max: 60, windowMs: HOUR },
    // The password typed again while signed in (change, deletion): a stolen session cannot guess it.
    'password:check': { max: 10, windowMs: HOUR },
    export: { max: 3, windowMs: DAY },
    // The app's language switch, saved for the e-mails.
    language: { max: 60, windowMs: HOUR },
    // Above what the app records by itself: a `message_sent` for each message `message:send` lets
    // through (180 a minute), and the few others; a message counted short would skew the daily counts.
    'analytics:event': { max: 240, windowMs: MINUTE },
  } satisfies Record<string, LimitRule>;
  const all = { ...rules, ...config.limits } as Record<keyof typeof rules, LimitRule>;
  if (config.limitMultiplier === 1) return all;
  return Object.fromEntries(
    Object.entries(all).map(([name, rule]) => [name, { ...rule, max: rule.max * config.limitMultiplier }]),
  ) as typeof all;
}

export type LimitName = keyof ReturnType<typeof limitRules>;

/** A user as the subject of a limit, whichever door (REST or socket) they came through. */
export const userSubject = (userId: number) => `user:${userId}`;

/**
 * Where a request comes from, as per-address limits count it: an IPv4 address, or an IPv6 address's
 * /64 network. One subscriber or host commonly holds a whole /64 (2^64 addresses): counted one by one,
 * each would start a fresh allowance, and per-address limits would not limit anything.
 */
export function clientNetwork(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  // Spelled out in full (`::` expanded), then its first four groups.
  const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}

/** The network a request comes from (`clientNetwork`). */
export const addressOf = (request: { ip: string }) => clientNetwork(request.ip);

/** The subject of a limit: the signed-in user, or the network of an anonymous request. */
export const requestSubject = (request: FastifyRequest) =>
  request.user ? userSubject(request.user.id) : `ip:${addressOf(request)}`;

/**
 * One throttle for the whole server, over counters in memory or in Redis (shared by every instance).
 * A refused attempt is a 429 with Retry-After (`Throttled`), before anything is stored.
 */
export interface Limits {
  /** Counts one attempt; throws `Throttled` once the subject has used up the limit's window. */
  consume(name: LimitName, subject: string): Promise<void>;
  /**
   * `consume` for several attempts at once, in order (a subject may come more than once), in one call
   * to the counters: each attempt's `Throttled`, or null where it may go ahead.
   */
  consumeEach(name: LimitName, subjects: readonly string[]): Promise<Array<Throttled | null>>;
  /** A route hook: `consume` for the request's user (or address when signed out), or a subject of its own. */
  hook(name: LimitName, subject?: (request: FastifyRequest) => string): (request: FastifyRequest) => Promise<void>;
  /** Gives one counted attempt back (`Counters.unhit`): a retry of one that was counted already. */
  unhit(name: LimitName, subject: string): Promise<void>;
  /** True once the subject has used up the limit's window (the next `consume` would throw), counting nothing. */
  usedUp(name: LimitName, subject: string): Promise<boolean>;
  /** Forgets a subject's count. */
  reset(name: LimitName, subject: string): Promise<void>;
  close(): Promise<void>;
}

export function createLimits(counters: Counters, rules: Record<LimitName, LimitRule>): Limits {
  const key = (name: LimitName, subject: string) => `${name}|${subject}`;
  const refusal = (result: CounterResult) => (result.exceeded ? new Throttled(result.retryAfterMs / 1000) : null);
  const consume = async (name: LimitName, subject: string) => {
    const rule = rules[name];
    const refused = refusal(await counters.hit(key(name, subject), rule.max, rule.windowMs));
    if (refused) throw refused;
  };
  return {
    consume,
    async consumeEach(name, subjects) {
      const rule = rules[name];
      const keys = subjects.map((subject) => key(name, subject));
      return (await counters.hitEach(keys, rule.max, rule.windowMs)).map(refusal);
    },
    hook: (name, subject = requestSubject) => (request) => consume(name, subject(request)),
    unhit: (name, subject) => counters.unhit(key(name, subject)),
    usedUp: async (name, subject) => (await counters.count(key(name, subject))) >= rules[name].max,
    reset: (name, subject) => counters.reset(key(name, subject)),
    close: () => counters.close(),
  };
}
