import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import { serverText } from '../../shared/i18n/server-messages';
import { Conflict, ServiceUnavailable } from '../errors';
import { timeoutSignal } from './timeout-signal';
import { inFlight, settledWithin } from './turns';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The link the message carries, logged when the message goes to the outbox folder. */
  link?: string;
}

/** What went wrong, as nodemailer or the file system said it ("Mail command failed: 451 4.3.0 …"). */
const reasonOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

/** The mail server did not take a message (down, refusing us), or the outbox folder could not be written. */
export class MailUnavailable extends ServiceUnavailable {
  constructor(
    options: { cause: unknown },
    /** Which message it was, for the log. */
    readonly mail?: { to: string; subject: string },
  ) {
    super(serverText('mail_unavailable'), 'mail_unavailable');
    this.cause = options.cause;
  }

  /** Answered 503 to a resend: logged as the e-mails sent beside a request are, saying what the mail server did. */
  override get logLine() {
    return { msg: 'e-mail not sent', facts: { ...this.mail, reason: reasonOf(this.cause) } };
  }
}

/**
 * The mail server refused the recipient as an address that does not exist (enhanced status 5.1.x:
 * unknown mailbox, unknown domain): trying again will not help. Any other refusal (relaying denied,
 * 5.7.x, a refusal with no enhanced status) is the mail server's or ours: `MailUnavailable`.
 */
export class MailAddressRefused extends Conflict {
  constructor(
    options: { cause: unknown },
    /** Which message it was, for the log. */
    readonly mail?: { to: string; subject: string },
  ) {
    super(serverText('mail_address_refused'));
    this.cause = options.cause;
  }
}

const refusesTheAddress = (error: unknown) => {
  const { code, command, response } = error as { code?: unknown; command?: unknown; response?: unknown };
  return code === 'EENVELOPE' && command === 'RCPT TO' && typeof response === 'string' && /^5\d\d[ -]5\.1\.\d+\b/.test(response);
};

/**
 * The mail server asked us to try again later: too many connections or busy (421), the mailbox or the
 * server not ready (450, 451), out of room for now (452).
 */
const isTransient = (error: unknown) => [421, 450, 451, 452].includes((error as { responseCode?: unknown }).responseCode as number);

export interface Mailer {
  /**
   * Sends one message: through SMTP when configured, else into the outbox folder; `MailUnavailable`
   * when it cannot, `MailAddressRefused` when the mail server says the address does not exist. Waits
   * its turn for a connection (`SMTP_CONNECTIONS`), before the messages of `later` work. Sent from
   * `later` work, a message the mail server defers (`isTransient`) is tried again (`RETRY_DELAYS_MS`).
   */
  send(message: MailMessage): Promise<void>;
  /**
   * Runs `work` (which usually ends in `send`) beside the request, never in its path: a slow or failing
   * mail server neither delays nor fails the answer, and the answer takes the same time whether or not
   * an e-mail is sent. Failures are logged. Shutdown waits a little for work in flight (`drain`).
   */
  later(work: () => Promise<unknown>): void;
  /** Resolves once the work started with `later` so far has finished (tests, shutdown). */
  idle(): Promise<void>;
  /**
   * Shutdown: waits for the sends in flight a few seconds (`SHUTDOWN_GRACE_MS`, or less: `grace` gives
   * what is left of the close's), then gives up on them and on any sent after, their connections
   * closed, each logged as not sent.
   */
  drain(grace?: (ms: number) => number): Promise<void>;
  close(): Promise<void>;
}

/**
 * How long a mail server that does not answer (connecting, greeting, mid-message) is waited for:
 * a resend is answered after its e-mail is sent, and the app gives up on an answer at 15 s
 * (nodemailer's own defaults are 2 minutes to connect and 30 s for the greeting). Settings in
 * SMTP_URL's query win.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 8_000, greetingTimeout: 8_000, socketTimeout: 8_000 };

/**
 * How long one message may take in all. The timeouts above are per step and socketTimeout only counts
 * silence: a server that answers each step in 7 s, or trickles an answer that never ends, would hold
 * the request past the app's 15 s, and the socket (and shutdown, which waits for sends) for good.
 */
const SEND_DEADLINE_MS = 10_000;

/**
 * How many messages are handed to the mail server at once, each through a connection kept open for the
 * next (nodemailer's pool); the others wait their turn. One connection per message would open as many as
 * there are sign-ups at that moment, and a provider capping connections answers those beyond its cap 421.
 * `maxConnections` in SMTP_URL's query wins.
 */
const SMTP_CONNECTIONS = 2;

/**
 * How long a pooled connection is kept open with nothing to send: a burst of e-mails shares it, and an
 * idle one does not hold one of the provider's connections away from the app's other instances.
 */
const SMTP_IDLE_MS = 5_000;

/**
 * The waits before trying a message of `later` work again when the mail server defers it (each
 * stretched by up to half, so that the messages deferred together do not come back together).
 * A resend is not tried again: its user waits for the answer, and is told to try again.
 */
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000];

/**
 * How long shutdown waits for the e-mails still being sent: against a healthy mail server, milliseconds;
 * against a stalled one, the process would reach its own shutdown deadline (10 s) and exit 1 with the
 * database still open.
 */
const SHUTDOWN_GRACE_MS = 3_000;

/**
 * E-mail with nodemailer. With `smtpUrl`, a real SMTP server; without it (the embedded default),
 * each message is written as an `.eml` file into `outboxDir` and its link is logged, so that
 * verification and reset work offline.
 */
export function createMailer(options: {
  smtpUrl: string | null;
  from: string;
  outboxDir: string;
  log: FastifyBaseLogger;
}): Mailer {
  const connections = Number(options.smtpUrl && new URL(options.smtpUrl).searchParams.get('maxConnections')) || SMTP_CONNECTIONS;
  const transport = options.smtpUrl
    ? nodemailer.createTransport({
        url: options.smtpUrl,
        pool: true,
        maxConnections: connections,
        idleTimeout: SMTP_IDLE_MS,
        ...SMTP_TIMEOUTS,
      })
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const turns = queue(connections);
  const inBackground = inFlight();
  /** The sends a request waits for (`send` outside `later`): shutdown gives them its grace too. */
  const forRequests = inFlight();
  const shutdown = new AbortController();
  // Every e-mail waiting for a connection listens for the shutdown (`queue`), as does every send's
  // deadline: a crowd signing up at once is a long line, not the leak Node warns of past ten listeners.
  setMaxListeners(Infinity, shutdown.signal);
  // Set for the work started with `later`: its messages are tried again.
  const background = new AsyncLocalStorage<true>();
  const idle = inBackground.settled;

  async function send(message: MailMessage) {
    try {
      if (!background.getStore()) {
        // The request waits: its one deadline counts the wait for a turn too.
        const deadline = AbortSignal.any([timeoutSignal(SEND_DEADLINE_MS), shutdown.signal]);
        const sending = inTurn(() => deliver(message, deadline), deadline, true);
        forRequests.track(sending);
        await sending;
      } else await deliverRetrying(message);
    } catch (error) {
      const mail = { to: message.to, subject: message.subject };
      if (refusesTheAddress(error)) throw new MailAddressRefused({ cause: error }, mail);
      throw new MailUnavailable({ cause: error }, mail);
    }
  }

  async function inTurn(work: () => Promise<void>, signal: AbortSignal, first = false) {
    const done = await turns.take(signal, first);
    try {
      await work();
    } finally {
      done();
    }
  }

  async function deliverRetrying(message: MailMessage) {
    for (let attempt = 0; ; attempt++) {
      // Tried again, it goes before the messages that have not been tried yet.
      const done = await turns.take(shutdown.signal, attempt > 0);
      let rest = 0;
      try {
        return await deliver(message, AbortSignal.any([timeoutSignal(SEND_DEADLINE_MS), shutdown.signal]));
      } catch (error) {
        const wait = RETRY_DELAYS_MS[attempt];
        if (wait === undefined || !isTransient(error) || shutdown.signal.aborted) throw error;
        rest = Math.round(wait * (1 + Math.random() / 2));
        options.log.info({ to: message.to, subject: message.subject, reason: reasonOf(error), retryInMs: rest }, 'e-mail deferred by the mail server: trying again');
        // A 421 refused the connection, not the message (too many connections, ours or another
        // instance's): it goes out at once through a connection that works, while this turn rests.
        // Shutdown gives up on it: the warn line says what the mail server last answered.
        if ((error as { responseCode?: unknown }).responseCode !== 421) await pause(rest).catch(() => Promise.reject(error));
      } finally {
        // The mail server deferring a message is short of something (connections, messages a minute):
        // the turn rests too, rather than open another connection at once.
        if (rest > 0) void pause(rest).catch(() => {}).finally(done);
        else done();
      }
    }
  }

  /** Waits, or rejects at shutdown. */
  const pause = (ms: number) => sleep(ms, undefined, { signal: shutdown.signal });

  async function deliver(message: MailMessage, signal: AbortSignal) {
    const info = await transport.sendMail({
      from: options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      // Aborted, nodemailer closes the connection: nothing is left holding the mail server's socket.
      signal,
    });
    if (options.smtpUrl) {
      options.log.info({ messageId: info.messageId }, 'e-mail sent');
      return;
    }
    await mkdir(options.outboxDir, { recursive: true });
    const file = path.join(options.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
    await writeFile(file, (info as { message: Buffer }).message);
    options.log.info({ to: message.to, subject: message.subject, link: message.link, file }, 'e-mail written to the outbox (no SMTP_URL)');
  }

  return {
    send,
    later(work) {
      const running = background.run(true, work).then(
        () => {},
        (error: unknown) => {
          // The mail server's doing (down, slow, refusing): one line saying which e-mail, to whom, and
          // what it answered; a stack of our code and nodemailer's for each would say nothing more.
          if (error instanceof MailUnavailable || error instanceof MailAddressRefused) {
            options.log.warn({ ...error.mail, reason: reasonOf(error.cause) }, 'e-mail not sent');
          } else options.log.error({ err: error }, 'e-mail could not be sent');
        },
      );
      inBackground.track(running);
    },
    idle,
    async drain(grace = (ms: number) => ms) {
      // A request's send as well as the background's: a resend on its way as the close began is not
      // refused (503) when its mail server was about to take it.
      await settledWithin(Promise.all([idle(), forRequests.settled()]), grace(SHUTDOWN_GRACE_MS));
      shutdown.abort(new Error('shutting down'));
      await idle();
    },
    async close() {
      await idle();
      transport.close();
    },
  };
}

/**
 * Turns for at most `size` at once, in order (`first`: ahead of those waiting). A waiter whose signal
 * aborts leaves the line, rejected with the signal's reason.
 */
function queue(size: number) {
  let free = size;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return {
    /** Resolves, once it is the caller's turn, to the function that ends it. */
    async take(signal: AbortSignal, first: boolean): Promise<() => void> {
      signal.throwIfAborted();
      if (free > 0) {
        free--;
        return release;
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          waiting.splice(waiting.indexOf(wake), 1);
          reject(signal.reason);
        };
        const wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        if (first) waiting.unshift(wake);
        else waiting.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      return release;
    },
  };
}
