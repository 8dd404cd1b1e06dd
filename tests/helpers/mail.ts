/**
 * A real SMTP server on a free local port (the `smtp-server` package), for the app's nodemailer
 * transport to deliver to through SMTP_URL. Every message is parsed as a mail client would
 * (`mailparser`), so tests read the real messages: headers, text and HTML parts, links.
 */
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients, lower-case. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  parsed: ParsedMail;
}

export interface TestSmtpServer {
  url: string;
  /** Every message received so far, in order. */
  inbox: ReceivedMail[];
  /** The messages sent to this address so far. */
  mailTo(address: string): ReceivedMail[];
  /**
   * Holds every message in the SMTP DATA phase until `release()`: a request whose answer does not
   * wait for its e-mail answers while its message is still held. `reached` settles once a message is held.
   */
  hold(): { release: () => void; reached: Promise<void> };
  /** The next message to `address` that was not handed out by this function before; waits for it. */
  nextMailTo(address: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * `maxClients`: how many connections it takes at once; one beyond is answered `421 Too many connected
 * clients, try again in a moment` and closed, as a provider capping connections does.
 */
export async function startSmtpServer(options: { maxClients?: number } = {}): Promise<TestSmtpServer> {
  const inbox: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters = new Set<() => void>();
  let gate: Promise<void> = Promise.resolve();
  let reachedGate = () => {};

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    maxClients: options.maxClients,
    onData(stream, session, callback) {
      reachedGate();
      Promise.all([simpleParser(stream), gate]).then(
        ([parsed]) => {
          inbox.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            parsed,
          });
          for (const wake of waiters) wake();
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const mailTo = (address: string) => inbox.filter((mail) => mail.to.includes(address.toLowerCase()));
  const untaken = (address: string) => mailTo(address).find((mail) => !taken.has(mail));

  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    mailTo,
    hold() {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const reached = new Promise<void>((resolve) => {
        reachedGate = resolve;
      });
      return { release, reached };
    },
    nextMailTo(address, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const mail = untaken(address);
          if (!mail) return false;
          taken.add(mail);
          waiters.delete(check);
          clearTimeout(timer);
          resolve(mail);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no e-mail to ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the link to `path` (`/verify-email`, `/reset-password`) in a message's text part. */
export function linkToken(mail: ReceivedMail, path: string): string {
  const line = mail.text.split('\n').find((each) => each.includes(`${path}?token=`));
  if (!line) throw new Error(`no ${path} link in: ${mail.text}`);
  return new URL(line.trim()).searchParams.get('token') ?? '';
}
