import { randomBytes } from 'node:crypto';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { authTokens, emailTokens, users } from '../../server/db/schema';
import { composeMail } from '../../server/features/account/emails';
import { type MailKind, mailCopy } from '../../shared/i18n/mail';
import { ANSWER_TIMEOUT_MS } from '../../client/lib/api';
import { runJob } from '../../server/jobs';
import { outboxSweep } from '../../server/jobs/outbox-sweep';
import { hashToken } from '../../server/lib/tokens';
import { SHUTDOWN_DEADLINE_MS } from '../../server/process';
import { type FakeGoogle, startFakeGoogle } from '../fakes/google';
import { makeCompletedUser, makeUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { linkToken, startSmtpServer, type TestSmtpServer } from '../helpers/mail';
import { freePort } from '../helpers/ports';
import { banThroughModeration, makeModerator } from '../helpers/safety';
import { backends, loggerInto, serverPerSuite, startServer } from '../helpers/server';
import { waitUntil } from '../helpers/socket';

const CLIENT_ID = 'eventmatch-test.apps.googleusercontent.com';
const MAIL_FROM = 'Eventmatch <no-reply@eventmatch.test>';
const LINK_INVALID = { token: ['This link is invalid or has expired.'] };
const RESET_ANSWER = { detail: 'If an account exists for this e-mail, we have sent a link to reset the password.' };
const GOOGLE_409 = {
  detail: 'An account with this e-mail already exists. Log in with your password, or reset it, to connect Google.',
};

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const unique = () => randomBytes(5).toString('hex');
const address = (prefix: string) => `${prefix}-${unique()}@example.com`;
const password = () => `Tidy-Lantern-${unique()}`;

function registration(email: string, pass = password()) {
  return { first_name: 'Lucía', last_name: 'Martín', username: email, password: pass, password2: pass };
}

describe.each(backends)('verified e-mail and password reset over real SMTP, on %s', (backend) => {
  let smtp: TestSmtpServer;
  let google: FakeGoogle;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    google = await startFakeGoogle({ clientId: CLIENT_ID });
  });
  afterAll(async () => {
    await smtp?.close();
    await google?.close();
  });
  const server = serverPerSuite(() => ({
    backend,
    config: {
      mail: { smtpUrl: smtp.url, from: MAIL_FROM },
      google: { clientId: CLIENT_ID, userInfoUrl: google.userInfoUrl, tokenInfoUrl: google.tokenInfoUrl },
      // The reset throttles get a test of their own below; these tests make many accounts from one address.
      limits: { 'register:ip': { max: 10_000, windowMs: 60_000 }, 'password-reset:ip': { max: 10_000, windowMs: 60_000 } },
    },
  }));

  const api = () => client(server.url);
  const me = (token: string) => api().get('/api/users/me/', { token });
  const register = async (email: string, pass = password(), language?: string) => {
    const response = await api().post('/api/auth/register/', {
      json: registration(email, pass),
      headers: language ? { 'accept-language': language } : {},
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return { id: response.body.id as number, email, password: pass };
  };
  const login = async (email: string, pass: string) => {
    const response = await api().post('/api/auth/', { json: { username: email, password: pass } });
    return response;
  };
  const requestReset = (email: string, headers: Record<string, string> = {}) =>
    api().post('/api/auth/password-reset/', { json: { email }, headers });
  const confirmReset = (token: string, pass: string, pass2 = pass) =>
    api().post('/api/auth/password-reset/confirm/', { json: { token, password: pass, password2: pass2 } });
  const googleLogin = (account: { sub: string; email: string }, headers: Record<string, string> = {}) =>
    api().post('/api/auth/google/login/', {
      json: { access_token: google.issue({ ...account, email_verified: true, given_name: 'Lucía', family_name: 'Martín' }) },
      headers,
    });

  describe('verification', () => {
    it('registration sends a link in the user’s language, as text and HTML, that verifies the address once', async () => {
      const user = await register(address('verify'), password(), 'en-GB,en;q=0.9');
      const login1 = await login(user.email, user.password);
      expect((await me(login1.body.token)).body).toMatchObject({ email: user.email, email_verified: false, has_password: true });

      const mail = await smtp.nextMailTo(user.email);
      expect(mail.subject).toBe('Confirm your e-mail address for Eventmatch');
      expect(mail.parsed.from?.text).toBe(MAIL_FROM.replace('Eventmatch', '"Eventmatch"'));
      // The link on a line of its own, in the text part; the same link in the HTML part.
      const lines = mail.text.split('\n');
      const link = lines.find((line) => line.includes('/verify-email?token='));
      expect(link).toMatch(new RegExp(`^${server.url.replaceAll('.', '\\.')}/verify-email\\?token=[A-Za-z0-9_-]{43}&lang=en$`));
      expect(mail.text).toContain('Hi Lucía,');
      expect(mail.html).toContain(`href="${link!.replaceAll('&', '&amp;')}"`);
      expect(mail.html).toContain('Confirm my e-mail address');

      const token = linkToken(mail, '/verify-email');
      // Only the token's hash is stored.
      const rows = await server.app.db.select().from(emailTokens).where(eq(emailTokens.userId, user.id));
      expect(rows).toEqual([expect.objectContaining({ tokenHash: hashToken(token), purpose: 'verify_email' })]);
      expect(rows[0]!.expiresAt.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
      expect(rows[0]!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

      const verified = await api().post('/api/auth/verify-email/', { json: { token } });
      expect(verified.status).toBe(200);
      expect(verified.body).toEqual({ detail: 'Your e-mail address is verified.', email: user.email });
      expect((await me(login1.body.token)).body.email_verified).toBe(true);

      const again = await api().post('/api/auth/verify-email/', { json: { token } });
      expect(again.status).toBe(400);
      expect(again.body).toEqual(LINK_INVALID);
      expect(await server.app.db.select().from(emailTokens).where(eq(emailTokens.userId, user.id))).toEqual([]);
    });

    it('writes in Spanish by default', async () => {
      const user = await register(address('es'));
      const mail = await smtp.nextMailTo(user.email);
      expect(mail.subject).toBe('Confirma tu correo electrónico para Eventmatch');
      expect(mail.text).toContain('Hola, Lucía:');
      expect(mail.html).toContain('<html lang="es">');

      // The link opened in the Spanish app: its answer in Spanish too.
      const token = linkToken(mail, '/verify-email');
      const verified = await api().post('/api/auth/verify-email/', { json: { token }, headers: { 'accept-language': 'es' } });
      expect(verified.body).toEqual({ detail: 'Tu correo electrónico está verificado.', email: user.email });
    });

    it('writes in the language the request prefers most, as the answers do, not in the first it lists', async () => {
      // A browser's own header: Spanish listed first, English preferred.
      const prefersEnglish = { 'accept-language': 'es;q=0.1, en-GB' };
      const user = await register(address('prefers'), password(), prefersEnglish['accept-language']);
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Confirm your e-mail address for Eventmatch');
      const token = (await login(user.email, user.password)).body.token as string;
      const resent = await api().post('/api/auth/verify-email/resend/', { token, headers: prefersEnglish });
      expect(resent.body).toEqual({ detail: 'We have sent you a new link to confirm your e-mail address.' });
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Confirm your e-mail address for Eventmatch');
    });

    it('writes the name the registration gave as words on the greeting’s line: no markup, no line of its own', async () => {
      // Whoever registers an address chooses the name its owner is greeted with.
      const email = address('hostile-name');
      const pass = password();
      const response = await api().post('/api/auth/register/', {
        json: { ...registration(email, pass), first_name: `<b class="big">Ana</b>\r\n\r\nYour account is locked\r\n` },
        headers: { 'accept-language': 'en' },
      });
      expect(response.status).toBe(201);
      const mail = await smtp.nextMailTo(email);
      expect(mail.text.split('\n')[0]).toBe('Hi <b class="big">Ana</b> Your account is locked,');
      // One line is a bare link: ours.
      expect(mail.text.split('\n').filter((line) => /^https?:\/\/\S+$/.test(line))).toEqual([
        expect.stringMatching(new RegExp(`^${server.url.replaceAll('.', '\\.')}/verify-email\\?token=`)),
      ]);
      expect(mail.html).toContain('Hi &lt;b class=&quot;big&quot;&gt;Ana&lt;/b&gt; Your account is locked,');
      expect(mail.html).not.toContain('<b class');
    });

    it('greets without the name when the name carries a link or an address a mail program would make clickable', async () => {
      // An e-mail from us that says "Hi Visit evil.com/reset," gives a stranger's link our good name.
      for (const [name, language, greeting] of [
        ['Ana https://evil.example/login', 'en', 'Hi,'],
        ['Your account is locked, see evil.com/unlock', 'es', 'Hola:'],
        ['Ana www.evil.io', 'en', 'Hi,'],
        ['Ana, write to help@evil.org', 'en', 'Hi,'],
        ['Ana evil\u3002com', 'en', 'Hi,'],
      ] as const) {
        const email = address('linked-name');
        const pass = password();
        const response = await api().post('/api/auth/register/', {
          json: { ...registration(email, pass), first_name: name },
          headers: { 'accept-language': language },
        });
        expect(response.status).toBe(201);
        const mail = await smtp.nextMailTo(email);
        expect(mail.text.split('\n')[0]).toBe(greeting);
        expect(mail.text).not.toContain('evil');
        expect(mail.html).not.toContain('evil');
      }
      // A plain name is still the greeting's.
      const email = address('plain-name');
      await api().post('/api/auth/register/', { json: { ...registration(email), first_name: 'María José' }, headers: { 'accept-language': 'es' } });
      expect((await smtp.nextMailTo(email)).text.split('\n')[0]).toBe('Hola, María José:');
    });

    it('refuses an expired, unknown, malformed or wrong-purpose token with the same 400, changing nothing', async () => {
      const user = await register(address('expired'));
      const token = linkToken(await smtp.nextMailTo(user.email), '/verify-email');
      await server.app.db
        .update(emailTokens)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(emailTokens.tokenHash, hashToken(token)));
      for (const bad of [token, 'not-a-token', '', 'x'.repeat(1000), 'x'.repeat(5000)]) {
        const response = await api().post('/api/auth/verify-email/', { json: { token: bad } });
        expect(response.status).toBe(400);
        expect(response.body).toEqual(LINK_INVALID);
      }
      const [row] = await server.app.db.select({ at: users.emailVerifiedAt }).from(users).where(eq(users.id, user.id));
      expect(row?.at).toBeNull();

      // A reset link is not a verification link.
      expect((await requestReset(user.email)).status).toBe(202);
      const resetToken = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
      expect((await api().post('/api/auth/verify-email/', { json: { token: resetToken } })).body).toEqual(LINK_INVALID);
      expect((await api().post('/api/auth/verify-email/', { json: {} })).status).toBe(400);
    });

    it('resends a fresh link (202) at most 5 times an hour, and not once the address is verified', async () => {
      const user = await register(address('resend'));
      await smtp.nextMailTo(user.email);
      const token = (await login(user.email, user.password)).body.token as string;

      expect((await api().post('/api/auth/verify-email/resend/')).status).toBe(401);
      for (let i = 0; i < 5; i++) {
        const response = await api().post('/api/auth/verify-email/resend/', { token, headers: { 'accept-language': 'en' } });
        expect(response.status).toBe(202);
        expect(response.body).toEqual({ detail: 'We have sent you a new link to confirm your e-mail address.' });
      }
      const sixth = await api().post('/api/auth/verify-email/resend/', { token });
      expect(sixth.status).toBe(429);
      expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(3000);

      const resent = [];
      for (let i = 0; i < 5; i++) resent.push(await smtp.nextMailTo(user.email));
      // Asked in English: the account's e-mails are in English from now on.
      expect(resent.map((mail) => mail.subject)).toEqual(Array(5).fill('Confirm your e-mail address for Eventmatch'));
      const last = linkToken(resent[4]!, '/verify-email');
      expect((await api().post('/api/auth/verify-email/', { json: { token: last } })).status).toBe(200);
      // Every other link died with the verification.
      expect((await api().post('/api/auth/verify-email/', { json: { token: linkToken(resent[0]!, '/verify-email') } })).status).toBe(400);

      const other = await register(address('resend-verified'));
      await smtp.nextMailTo(other.email);
      const otherToken = (await login(other.email, other.password)).body.token as string;
      await api().post('/api/auth/verify-email/', { json: { token: linkToken(smtp.mailTo(other.email)[0]!, '/verify-email') } });
      const done = await api().post('/api/auth/verify-email/resend/', { token: otherToken });
      expect(done.status).toBe(409);
      expect(done.body).toEqual({ detail: 'Your e-mail address is already verified.' });
    });
  });

  describe('password reset', () => {
    it('answers the same for known and unknown addresses, and mails only the known one', async () => {
      const user = await register(address('known'), password(), 'en');
      await smtp.nextMailTo(user.email);
      const unknown = address('nobody');

      const known = await requestReset(user.email.toUpperCase());
      const stranger = await requestReset(unknown);
      expect(known.status).toBe(202);
      expect(stranger.status).toBe(202);
      expect(known.body).toEqual(RESET_ANSWER);
      expect(stranger.body).toEqual(RESET_ANSWER);
      expect([...known.headers.keys()].sort()).toEqual([...stranger.headers.keys()].sort());

      const mail = await smtp.nextMailTo(user.email);
      expect(mail.subject).toBe('Reset your Eventmatch password');
      expect(mail.text).toMatch(new RegExp(`\\n${server.url.replaceAll('.', '\\.')}/reset-password\\?token=[A-Za-z0-9_-]{43}&lang=en\\n`));
      await server.app.mailer.idle();
      expect(smtp.mailTo(unknown)).toEqual([]);
    });

    it('answers before the e-mail is even delivered: no timing difference to tell accounts apart', async () => {
      const user = await register(address('timing'));
      await smtp.nextMailTo(user.email);
      const held = smtp.hold();
      const response = await requestReset(user.email);
      expect(response.status).toBe(202);
      // The answer is out while the message still waits in the SMTP server's DATA phase.
      expect(smtp.mailTo(user.email)).toHaveLength(1);
      held.release();
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Restablece tu contraseña de Eventmatch');
    });

    it('says whether a link can still be used, and for whom, before a password is typed, and spends nothing', async () => {
      const user = await register(address('reset-check'));
      await smtp.nextMailTo(user.email);
      await requestReset(user.email);
      const token = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
      const check = (value: unknown) => api().post('/api/auth/password-reset/check/', { json: { token: value } });

      // The address the link was sent to: the page tells it from the account signed in on the device.
      for (let time = 0; time < 2; time++) {
        const usable = await check(token);
        expect(usable.status).toBe(200);
        expect(usable.body).toEqual({ email: user.email, has_password: true });
      }
      expect((await confirmReset(token, password())).status).toBe(200);
      await smtp.nextMailTo(user.email); // the notice of the new password
      // Spent: the same 400 as the confirmation's, as for a token never issued, naming nobody.
      for (const bad of [token, 'not-a-token', '', 'x'.repeat(5000)]) {
        const refused = await check(bad);
        expect(refused.status, bad.slice(0, 20)).toBe(400);
        expect(refused.body).toEqual(LINK_INVALID);
      }
      const wrongShape = await check(42);
      expect(wrongShape.status).toBe(400);
      expect(wrongShape.body).toEqual({ token: ['Not a valid string.'] });

      // Expired: refused as well.
      await requestReset(user.email);
      const expired = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
      await server.app.db.update(emailTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(emailTokens.tokenHash, hashToken(expired)));
      expect((await check(expired)).body).toEqual(LINK_INVALID);
    });

    it('signs in with a fresh token, ends every other session, verifies the e-mail, and works once', async () => {
      const user = await register(address('reset'));
      await smtp.nextMailTo(user.email);
      const phone = (await login(user.email, user.password)).body.token as string;
      const laptop = (await login(user.email, user.password)).body.token as string;

      await requestReset(user.email);
      const first = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
      await requestReset(user.email);
      const second = linkToken(await smtp.nextMailTo(user.email), '/reset-password');

      // Registration's rules, every problem at once; the link is not spent by a refused attempt.
      const weak = await confirmReset(first, '12345678', '87654321');
      expect(weak.status).toBe(400);
      expect(weak.body).toEqual({
        password: ['This password is too common.', 'This password is entirely numeric.'],
        password2: ['The two passwords do not match.'],
      });
      const similar = await confirmReset(first, user.email);
      expect(similar.body.password).toContain('The password is too similar to the e-mail address.');

      const fresh = password();
      const confirmed = await confirmReset(first, fresh);
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toEqual({ token: expect.any(String) });
      expect([phone, laptop]).not.toContain(confirmed.body.token);

      expect((await me(confirmed.body.token)).body).toMatchObject({ id: user.id, email_verified: true });
      for (const old of [phone, laptop]) {
        const response = await me(old);
        expect(response.status).toBe(401);
        expect(response.body).toEqual({ detail: 'Invalid token.' });
      }
      expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toHaveLength(1);

      // Once only, and every other reset link of the account died with it.
      expect((await confirmReset(first, password())).body).toEqual(LINK_INVALID);
      expect((await confirmReset(second, password())).body).toEqual(LINK_INVALID);
      expect((await login(user.email, user.password)).status).toBe(400);
      expect((await login(user.email, fresh)).status).toBe(200);

      const notice = await smtp.nextMailTo(user.email);
      expect(notice.subject).toBe('Tu contraseña de Eventmatch ha cambiado');
      expect(notice.text).not.toContain('token=');
    });

    it('refuses a link older than an hour, and reports a bad link and a bad password together', async () => {
      const user = await register(address('stale'));
      await smtp.nextMailTo(user.email);
      await requestReset(user.email);
      const token = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
      const [row] = await server.app.db.select().from(emailTokens).where(eq(emailTokens.tokenHash, hashToken(token)));
      expect(row!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(3600_000);
      expect(row!.expiresAt.getTime() - Date.now()).toBeGreaterThan(3500_000);
      await server.app.db.update(emailTokens).set({ expiresAt: new Date(Date.now() - 1) }).where(eq(emailTokens.tokenHash, hashToken(token)));

      expect((await confirmReset(token, password())).body).toEqual(LINK_INVALID);
      for (const bad of ['', 'x'.repeat(5000)]) expect((await confirmReset(bad, password())).body).toEqual(LINK_INVALID);
      const both = await confirmReset('made-up', 'qx7!');
      expect(both.status).toBe(400);
      expect(both.body).toEqual({
        ...LINK_INVALID,
        password: ['This password is too short. It must contain at least 8 characters.'],
      });
      expect((await login(user.email, user.password)).status).toBe(200);
    });

    it('keeps the account’s language through sign-ins made in another, and says which it is', async () => {
      const user = await register(address('switcher'), password(), 'en');
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Confirm your e-mail address for Eventmatch');
      // A new phone signs in showing its default, Spanish: the account stays English, and says so.
      const signedIn = await api().post('/api/auth/', {
        json: { username: user.email, password: user.password },
        headers: { 'accept-language': 'es' },
      });
      expect(signedIn.status).toBe(200);
      const { token } = signedIn.body as { token: string };
      expect((await me(token)).body.language).toBe('en');
      await requestReset(user.email, { 'accept-language': 'es' });
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Reset your Eventmatch password');

      // Switched in the app: the account speaks it from then on, and a sign-in in English leaves it so.
      expect((await api().put('/api/users/me/language/', { token, json: { language: 'es' } })).status).toBe(204);
      const again = await api().post('/api/auth/', { json: { username: user.email, password: user.password }, headers: { 'accept-language': 'en' } });
      expect((await me(again.body.token as string)).body.language).toBe('es');
    });

    it('keeps the account’s language through a Google sign-in made in another, and gives a new one the app’s', async () => {
      const account = { sub: `language-${unique()}`, email: address('google-language') };
      const created = await googleLogin(account, { 'accept-language': 'en' });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await me(created.body.token as string)).body.language).toBe('en');
      const signedIn = await googleLogin(account, { 'accept-language': 'es' });
      expect(signedIn.status).toBe(200);
      expect((await me(signedIn.body.token as string)).body.language).toBe('en');
    });

    it('writes in the language the app was switched to, and in the one a new password was set in', async () => {
      const user = await register(address('app-switcher'));
      await smtp.nextMailTo(user.email);
      const { token } = (await login(user.email, user.password)).body as { token: string };
      // Signed in in Spanish (the default), then switched to English in the app's top bar.
      const switched = await api().put('/api/users/me/language/', { token, json: { language: 'en' } });
      expect(switched.status).toBe(204);
      await requestReset(user.email, { 'accept-language': 'es' });
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Reset your Eventmatch password');

      // A language the app does not speak, or no session: refused, and the account's stays English.
      expect((await api().put('/api/users/me/language/', { token, json: { language: 'fr' } })).status).toBe(400);
      expect((await api().put('/api/users/me/language/', { json: { language: 'es' } })).status).toBe(401);
      await requestReset(user.email);
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Reset your Eventmatch password');

      // The new password set from a Spanish app: told in Spanish, and so are the e-mails after it.
      const changed = await api().post('/api/users/me/password/', {
        token,
        json: { current_password: user.password, password: 'Another-Quiet-Phrase-81', password2: 'Another-Quiet-Phrase-81' },
        headers: { 'accept-language': 'es' },
      });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Tu contraseña de Eventmatch ha cambiado');
      await requestReset(user.email, { 'accept-language': 'en' });
      expect((await smtp.nextMailTo(user.email)).subject).toBe('Restablece tu contraseña de Eventmatch');
    });

    it('spends a link once even when it is used twice at the same instant', async () => {
      const user = await register(address('race'));
      await smtp.nextMailTo(user.email);
      await requestReset(user.email);
      const token = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
      const answers = await Promise.all([confirmReset(token, password()), confirmReset(token, password())]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      expect(answers.find((answer) => answer.status === 400)!.body).toEqual(LINK_INVALID);
      expect(await server.app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).toHaveLength(1);
    });

    it('opens nothing for a suspended account: no new link, and an old one answers 403', async () => {
      const user = await makeCompletedUser(server);
      await smtp.nextMailTo(user.email);
      await requestReset(user.email);
      const token = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
      await banThroughModeration(server, await makeModerator(server), user);
      const stored = () => server.app.db.select({ hash: users.passwordHash, verified: users.emailVerifiedAt }).from(users).where(eq(users.id, user.id));
      const before = await stored();

      const refused = await confirmReset(token, password());
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: 'This account has been suspended.', code: 'account_suspended' });
      // The refusal changed nothing: same password, still unverified, no session (but the one the ban ended).
      expect(await stored()).toEqual(before);
      expect(await server.app.db.select().from(authTokens).where(and(eq(authTokens.userId, user.id), eq(authTokens.endedByBan, false)))).toEqual([]);
      expect((await requestReset(user.email)).status).toBe(202);
      await server.app.mailer.idle();
      expect(smtp.mailTo(user.email)).toHaveLength(2);
    });

    it('lets an account made with Google set its first password', async () => {
      const email = address('google-only');
      const sub = `1${Date.now()}${unique()}`;
      const first = await googleLogin({ sub, email });
      expect(first.status).toBe(200);
      expect((await me(first.body.token)).body).toMatchObject({ email_verified: true, has_password: false });

      await requestReset(email);
      // It has no password to reset (the account is in Spanish): the e-mail offers to set one, and says
      // ignoring it leaves the account as it was, not that "your password" stays.
      const mail = await smtp.nextMailTo(email);
      expect(mail.subject).toBe('Crea una contraseña para Eventmatch');
      expect(mail.text).toContain('Inicias sesión en Eventmatch con Google.');
      expect(mail.text).not.toMatch(/restablece|tu contraseña no cambia/i);
      const token = linkToken(mail, '/reset-password');
      // Its page asks for a first password, not a new one.
      const check = await api().post('/api/auth/password-reset/check/', { json: { token } });
      expect(check.body).toEqual({ email, has_password: false });
      const fresh = password();
      expect((await confirmReset(token, fresh)).status).toBe(200);
      // The owner is told, as of any new password, that one was set where there was none.
      const notice = await smtp.nextMailTo(email);
      expect(notice.subject).toBe('Tu cuenta de Eventmatch ya tiene contraseña');
      expect(notice.text).toContain('además de con Google');
      expect((await login(email, fresh)).status).toBe(200);
      expect((await me(first.body.token)).status).toBe(401);
    });
  });

  it('stops pre-account hijacking: the attacker registers first, the owner resets, Google then links', async () => {
    const victimEmail = address('victim');
    const attackerPassword = password();
    // The attacker registers the victim's address and stays signed in.
    const attacker = await register(victimEmail, attackerPassword);
    const attackerToken = (await login(victimEmail, attackerPassword)).body.token as string;
    await smtp.nextMailTo(victimEmail); // the verification link lands in the victim's inbox, unused

    // The victim's Google login does not land in the attacker's account.
    const victimGoogle = { sub: `1${Date.now()}${unique()}`, email: victimEmail };
    const refused = await googleLogin(victimGoogle);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(GOOGLE_409);
    const [row] = await server.app.db.select({ sub: users.googleSub }).from(users).where(eq(users.id, attacker.id));
    expect(row?.sub).toBeNull();

    // The victim resets the password through their own inbox.
    await requestReset(victimEmail);
    const resetToken = linkToken(await smtp.nextMailTo(victimEmail), '/reset-password');
    const victimPassword = password();
    const reset = await confirmReset(resetToken, victimPassword);
    expect(reset.status).toBe(200);

    // The attacker is out: their token and their password are dead.
    expect((await me(attackerToken)).status).toBe(401);
    expect((await login(victimEmail, attackerPassword)).status).toBe(400);

    // Google now links to the (verified) account, the same one the reset signed in to.
    const linked = await googleLogin(victimGoogle);
    expect(linked.status).toBe(200);
    expect((await me(linked.body.token)).body).toMatchObject({ id: attacker.id, email: victimEmail, email_verified: true });
    expect((await me(reset.body.token)).body.id).toBe(attacker.id);
  });

  it('throttles reset requests: 5 an hour per e-mail, whatever the address', async () => {
    const user = await register(address('reset-throttle'));
    for (let i = 0; i < 5; i++) {
      expect((await requestReset(user.email, { 'x-forwarded-for': `192.0.2.${i + 1}` })).status).toBe(202);
    }
    const sixth = await requestReset(user.email.toUpperCase(), { 'x-forwarded-for': '192.0.2.99' });
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/) });
    await server.app.mailer.idle();
    // One verification and five resets; nothing for the refused request.
    expect(smtp.mailTo(user.email)).toHaveLength(6);
  });
});

describe.each(backends)('reset requests per address, on %s', (backend) => {
  const server = serverPerSuite({ backend });

  it('throttles reset requests: 20 an hour per IP, across e-mails', async () => {
    const api = client(server.url);
    const ip = { 'x-forwarded-for': '198.51.100.20' };
    for (let i = 0; i < 20; i++) {
      expect((await api.post('/api/auth/password-reset/', { json: { email: address(`ip${i}`) }, headers: ip })).status).toBe(202);
    }
    const refused = await api.post('/api/auth/password-reset/', { json: { email: address('ip-last') }, headers: ip });
    expect(refused.status).toBe(429);
    // Another address is not affected.
    const other = await api.post('/api/auth/password-reset/', { json: { email: address('ip-other') }, headers: { 'x-forwarded-for': '198.51.100.21' } });
    expect(other.status).toBe(202);
    expect((await api.post('/api/auth/password-reset/', { json: { email: 'not-an-address' } })).body).toEqual({
      email: ['Enter a valid e-mail address.'],
    });
  });
});

describe.each(backends)('e-mail links opened from one address, on %s', (backend) => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  // Three links an hour per address here, where the server has sixty.
  const server = serverPerSuite(() => ({
    backend,
    config: { mail: { smtpUrl: smtp.url, from: MAIL_FROM }, limits: { 'email-link:ip': { max: 3, windowMs: 3600_000 } } },
  }));
  const venue = { 'x-forwarded-for': '203.0.113.40' };

  it('counts the links that did not work, never a good one: a venue’s crowd verifies behind one address', async () => {
    const api = client(server.url);
    const emails = [1, 2, 3, 4, 5].map((i) => address(`venue-${i}`));
    for (const email of emails) {
      expect((await api.post('/api/auth/register/', { json: registration(email) })).status).toBe(201);
    }
    // Five good links from the venue's one address, past the three: every one verifies.
    for (const email of emails) {
      const token = linkToken(await smtp.nextMailTo(email), '/verify-email');
      const verified = await api.post('/api/auth/verify-email/', { json: { token }, headers: venue });
      expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    }
    // A reset's check and its confirmation, both good: not counted either.
    await api.post('/api/auth/password-reset/', { json: { email: emails[0] } });
    const reset = linkToken(await smtp.nextMailTo(emails[0]!), '/reset-password');
    expect((await api.post('/api/auth/password-reset/check/', { json: { token: reset }, headers: venue })).status).toBe(200);
    const pass = password();
    const confirmed = await api.post('/api/auth/password-reset/confirm/', { json: { token: reset, password: pass, password2: pass }, headers: venue });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    // Tries that do not work still are: three, then the address waits, whatever it sends.
    for (let i = 0; i < 3; i++) {
      const guess = await api.post('/api/auth/verify-email/', { json: { token: `guess-${unique()}` }, headers: venue });
      expect(guess.body).toEqual(LINK_INVALID);
    }
    const refused = await api.post('/api/auth/password-reset/check/', { json: { token: `guess-${unique()}` }, headers: venue });
    expect(refused.status).toBe(429);
  });
});

describe('the embedded default: no SMTP_URL', () => {
  const logs: string[] = [];
  const server = serverPerSuite({ logger: loggerInto(logs, 'info') });

  it('writes each message as an .eml file into DATA_DIR/outbox/ and logs its link', async () => {
    const user = await makeUser(server);
    await server.app.mailer.idle();
    const outbox = path.join(server.config.dataDir, 'outbox');
    const files = (await readdir(outbox)).filter((name) => name.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const eml = await readFile(path.join(outbox, files[0]!), 'utf8');
    expect(eml).toMatch(new RegExp(`^To: ${user.email.replaceAll('.', '\\.')}$`, 'm'));
    expect(eml).toContain('Content-Type: text/plain');
    expect(eml).toContain('Content-Type: text/html');

    const logged = logs.map((line) => JSON.parse(line)).find((entry) => entry.msg?.startsWith('e-mail written to the outbox'));
    expect(logged).toMatchObject({ to: user.email, link: expect.stringMatching(/\/verify-email\?token=[A-Za-z0-9_-]{43}&lang=(es|en)$/) });
    // The link logged is the one in the file, and it works.
    const token = new URL(logged.link).searchParams.get('token')!;
    expect(eml.replace(/=\r?\n/g, '')).toContain(token);
    expect((await client(server.url).post('/api/auth/verify-email/', { json: { token } })).status).toBe(200);
  });

  it('keeps the outbox’s e-mails a week, then the outbox sweep deletes them', async () => {
    await makeUser(server);
    await server.app.mailer.idle();
    const outbox = path.join(server.config.dataDir, 'outbox');
    const [old, fresh] = (await readdir(outbox)).filter((name) => name.endsWith('.eml')).sort().slice(-2);
    // One of them written eight days ago; a file of someone else's beside them is left alone.
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    await utimes(path.join(outbox, old!), eightDaysAgo, eightDaysAgo);
    await writeFile(path.join(outbox, 'notes.txt'), 'not an e-mail');
    await utimes(path.join(outbox, 'notes.txt'), eightDaysAgo, eightDaysAgo);

    expect(await runJob(server.app, outboxSweep)).toMatchObject({ status: 'done', report: { removed: 1 } });
    const left = await readdir(outbox);
    expect(left).toContain(fresh);
    expect(left).not.toContain(old);
    expect(left).toContain('notes.txt');
  });

  it('logs no link’s secret when the link is opened: the request lines hide `token` and `t`', async () => {
    const secret = 'Zq3-secret-of-a-reset-link-0123456789abcdefgh';
    const opened = ['/reset-password?token=', '/verify-email/?lang=es&token=', '/e/ABC234?t='].map((path) => `${path}${secret}`);
    for (const path of opened) await (await fetch(`${server.url}${path}`)).arrayBuffer();

    const requests = logs.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'incoming request');
    const urls = requests.map((entry) => entry.req.url);
    expect(urls).toEqual(expect.arrayContaining(['/reset-password?token=[hidden]', '/verify-email/?lang=es&token=[hidden]', '/e/ABC234?t=[hidden]']));
    expect(logs.join('\n')).not.toContain(secret);
    // The rest of a request line is as Fastify writes it.
    expect(requests.at(-1).req).toEqual({ method: 'GET', url: '/e/ABC234?t=[hidden]', host: expect.stringMatching(/^127\.0\.0\.1:\d+$/), remoteAddress: '127.0.0.1', remotePort: expect.any(Number) });
  });
});

describe.each(backends)('a reset clears the account’s login throttle, on %s', (backend) => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp?.close());
  const server = serverPerSuite(() => ({
    backend,
    config: { mail: { smtpUrl: smtp.url, from: MAIL_FROM }, loginThrottle: { perIp: 100, perAccount: 2, windowMs: 60_000 } },
  }));

  it('lets the owner in at once from an address their mistypes had throttled', async () => {
    const api = client(server.url);
    const user = await makeUser(server);
    await smtp.nextMailTo(user.email);
    const login = (pass: string) =>
      api.post('/api/auth/', { json: { username: user.email, password: pass }, headers: { 'x-forwarded-for': '203.0.113.50' } });
    expect((await login('forgot-it-1')).status).toBe(400);
    expect((await login('forgot-it-2')).status).toBe(400);
    expect((await login('forgot-it-3')).status).toBe(429);

    await api.post('/api/auth/password-reset/', { json: { email: user.email } });
    const token = linkToken(await smtp.nextMailTo(user.email), '/reset-password');
    const fresh = password();
    expect((await api.post('/api/auth/password-reset/confirm/', { json: { token, password: fresh, password2: fresh } })).status).toBe(200);

    expect((await login(fresh)).status).toBe(200);
  });
});

describe('a new verification link on its way as the app closes', () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp?.close());

  it('is sent, and answered, before the close goes on', async () => {
    const own = await startServer({ config: { mail: { smtpUrl: smtp.url, from: MAIL_FROM } } });
    let held: ReturnType<TestSmtpServer['hold']> | undefined;
    try {
      const user = await makeUser(own);
      await smtp.nextMailTo(user.email);
      held = smtp.hold();
      const resent = client(own.url).post('/api/auth/verify-email/resend/', { token: user.token, headers: { 'accept-language': 'en' } });
      // Its message is with the mail server, which has not said it took it yet.
      await held.reached;
      const closing = own.close();
      // The close is under way: requests are refused, or the app no longer listens at all.
      const refusing = () =>
        fetch(`${own.url}/readyz`).then(
          (response) => response.status === 503,
          () => true,
        );
      await waitUntil(refusing, 5000, 'the close to begin');
      held.release();
      // The mail server's answer comes within the close's grace: the link is sent, and the request told so.
      expect((await resent).body).toEqual({ detail: 'We have sent you a new link to confirm your e-mail address.' });
      await closing;
      expect(smtp.mailTo(user.email)).toHaveLength(2);
    } finally {
      held?.release();
    }
  });
});

describe('a new verification link while the mail server is down', () => {
  const logs: string[] = [];
  // Nothing listens there: every delivery is refused, as by a mail server that is down.
  const server = serverPerSuite(async () => ({
    logger: loggerInto(logs, 'info'),
    config: { mail: { smtpUrl: `smtp://127.0.0.1:${await freePort()}`, from: MAIL_FROM } },
  }));

  it('is answered 503 in the request’s language, not as sent, and is not one of the hour’s five', async () => {
    const user = await makeUser(server);
    for (let attempt = 0; attempt < 6; attempt++) {
      const response = await client(server.url).post('/api/auth/verify-email/resend/', { token: user.token, headers: { 'accept-language': 'es' } });
      expect(response.status, `attempt ${attempt + 1}`).toBe(503);
      expect(response.body).toEqual({
        detail: 'No se ha podido enviar el correo ahora. Inténtalo de nuevo en unos minutos.',
        code: 'mail_unavailable',
      });
    }
  });

  it('is logged as one warning that says to whom and what the mail server did, with no stack', async () => {
    const user = await makeUser(server);
    await server.app.mailer.idle();
    logs.length = 0;
    expect((await client(server.url).post('/api/auth/verify-email/resend/', { token: user.token })).status).toBe(503);
    const entries = logs.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 40);
    expect(entries).toEqual([
      expect.objectContaining({ level: 40, msg: 'e-mail not sent', to: user.email, reason: expect.stringMatching(/ECONNREFUSED/) }),
    ]);
    expect(JSON.stringify(entries)).not.toContain('node_modules');
  });
});

describe('the e-mails of sign-ups while the mail server is down', () => {
  const logs: string[] = [];
  const server = serverPerSuite(async () => ({
    logger: loggerInto(logs, 'info'),
    config: { mail: { smtpUrl: `smtp://127.0.0.1:${await freePort()}`, from: MAIL_FROM } },
  }));

  it('are logged once each, as a line that says which e-mail, to whom, and what the mail server did', async () => {
    const user = await makeUser(server);
    await server.app.mailer.idle();
    const entries = logs.map((line) => JSON.parse(line)).filter((entry) => /e-mail/.test(entry.msg) && !entry.req && !entry.res);
    expect(entries).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'e-mail not sent',
        to: user.email,
        subject: 'Confirma tu correo electrónico para Eventmatch',
        reason: expect.stringMatching(/ECONNREFUSED/),
      }),
    ]);
    // An outage is the mail server's, not a bug of ours: no stack of our code and nodemailer's for each.
    expect(JSON.stringify(entries[0])).not.toContain('node_modules');
  });
});

describe('the e-mails of many sign-ups at once, to a mail server that takes 2 connections at a time', () => {
  const logs: string[] = [];
  let smtp: TestSmtpServer;
  let other: Socket | undefined;
  beforeAll(async () => {
    smtp = await startSmtpServer({ maxClients: 2 });
  });
  afterAll(async () => {
    other?.destroy();
    await smtp?.close();
  });
  const server = serverPerSuite(() => ({
    logger: loggerInto(logs, 'info'),
    config: { mail: { smtpUrl: smtp.url, from: MAIL_FROM }, limits: { 'register:ip': { max: 10_000, windowMs: 60_000 } } },
  }));

  it('are all delivered: the app opens few connections, and tries again when the mail server says 421', async () => {
    // Another instance of the app holds one of the two: the app's second connection is answered 421.
    const { port } = new URL(smtp.url);
    other = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => other!.once('data', resolve));
    // A crowd's e-mails wait in line for a connection, each until its turn or the app's shutdown: no
    // "possible memory leak" in the server's log for a line longer than Node's default of ten.
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(warning.name);
    process.on('warning', warned);
    onTestFinished(() => void process.off('warning', warned));
    // The first e-mail is held in the mail server until the second has met the 421: they are sent at once.
    const held = smtp.hold();
    const emails = Array.from({ length: 15 }, () => address('crowd'));
    const signUps = Promise.all(emails.map((email) => client(server.url).post('/api/auth/register/', { json: registration(email) })));
    const entries = () => logs.map((line) => JSON.parse(line)).filter((entry) => /e-mail/.test(entry.msg) && !entry.req && !entry.res);
    await expect
      .poll(entries, { timeout: 10_000 })
      .toContainEqual(expect.objectContaining({ level: 30, msg: 'e-mail deferred by the mail server: trying again', reason: expect.stringMatching(/421/) }));
    held.release();
    expect((await signUps).map((response) => response.status)).toEqual(emails.map(() => 201));
    await server.app.mailer.idle();
    expect(emails.filter((email) => smtp.mailTo(email).length !== 1)).toEqual([]);
    expect(entries().filter((entry) => entry.level >= 40)).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe('new verification links asked for again and again while the mail server is down', () => {
  const server = serverPerSuite(async () => ({ config: { mail: { smtpUrl: `smtp://127.0.0.1:${await freePort()}`, from: MAIL_FROM } } }));

  it('stops trying after 20 an hour', async () => {
    const user = await makeUser(server);
    const resend = () => client(server.url).post('/api/auth/verify-email/resend/', { token: user.token, headers: { 'accept-language': 'en' } });
    for (let attempt = 0; attempt < 20; attempt++) expect((await resend()).status, `attempt ${attempt + 1}`).toBe(503);
    // None of them is one of the hour's five, yet each one reached the mail server and wrote a link
    // (kept: one whose answer never came may have gone out): without a bound of its own, a signed-in
    // script repeats them without end.
    const refused = await resend();
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
  });
});

describe('a new verification link while the mail server takes the connection and never answers', () => {
  let silent: Server;
  beforeAll(async () => {
    const held = new Set<Socket>();
    silent = createServer((socket) => void held.add(socket.on('close', () => held.delete(socket))));
    silent.on('close', () => held.forEach((socket) => socket.destroy()));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    silent?.close();
  });
  const server = serverPerSuite(() => {
    const { port } = silent.address() as AddressInfo;
    return { config: { mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: MAIL_FROM } } };
  });

  // nodemailer waits 30 s for a greeting unless told otherwise: the app would have given up (15 s).
  it('is answered 503 before the app gives up on the answer', async () => {
    const user = await makeUser(server);
    const response = await client(server.url).post('/api/auth/verify-email/resend/', { token: user.token });
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('mail_unavailable');
  }, 20_000);
});

describe('a new verification link while the mail server answers, but never finishes an answer', () => {
  // It greets, then answers EHLO one line a second and never with its last line: the socket is never
  // idle long enough for nodemailer's socketTimeout, so only a deadline on the whole send ends it.
  let trickling: Server;
  const open = new Set<Socket>();
  beforeAll(async () => {
    trickling = createServer((socket) => {
      open.add(socket);
      socket.on('error', () => {});
      const timer = setInterval(() => socket.write('250-still thinking\r\n'), 1000);
      socket.on('close', () => {
        clearInterval(timer);
        open.delete(socket);
      });
      socket.write('220 smtp.example ESMTP\r\n');
    });
    await new Promise<void>((resolve) => trickling.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    open.forEach((socket) => socket.destroy());
    trickling?.close();
  });
  const server = serverPerSuite(() => {
    const { port } = trickling.address() as AddressInfo;
    return { config: { mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: MAIL_FROM } } };
  });

  it('is answered 503 before the app gives up on the answer, and the connection is let go', async () => {
    const user = await makeUser(server);
    const started = Date.now();
    const answer = client(server.url).post('/api/auth/verify-email/resend/', { token: user.token, headers: { 'accept-language': 'en' } });
    // A garbage collection while both e-mails are on their way takes nothing their deadlines need.
    await expect.poll(() => open.size).toBe(2);
    gc();
    const response = await answer;
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ detail: 'The e-mail could not be sent just now. Please try again in a few minutes.', code: 'mail_unavailable' });
    expect(Date.now() - started).toBeLessThan(ANSWER_TIMEOUT_MS);
    // The registration's own e-mail, sent beside its request, gave up too.
    await server.app.mailer.idle();
    // nodemailer ends the connection, and destroys it 5 s later if the server does not close its side.
    await expect.poll(() => open.size, { timeout: 10_000 }).toBe(0);
  }, 30_000);

  it('does not hold the app’s shutdown for the e-mail it is still sending', async () => {
    const { port } = trickling.address() as AddressInfo;
    const own = await startServer({ config: { mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: MAIL_FROM } } });
    const before = open.size;
    await makeUser(own);
    // The registration's verification e-mail is on its way, stuck in the mail server's answer.
    await expect.poll(() => open.size).toBeGreaterThan(before);
    const started = Date.now();
    await own.close();
    // The process gives up on an orderly shutdown at 10 s and exits 1 without closing the database.
    expect(Date.now() - started).toBeLessThan(SHUTDOWN_DEADLINE_MS / 2);
  }, 30_000);
});

describe('a new verification link to an address the mail server refuses', () => {
  // A mail server that takes the sender, then answers the recipient with `rcptReply`.
  let rcptReply = '';
  let refusing: Server;
  beforeAll(async () => {
    refusing = createServer((socket) => {
      socket.on('error', () => {});
      let data = false;
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString();
        for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          if (data) {
            if (line === '.') data = false;
            continue;
          }
          const command = line.slice(0, 4).toUpperCase();
          if (command === 'RCPT') socket.write(`${rcptReply}\r\n`);
          else if (command === 'QUIT') socket.end('221 bye\r\n');
          else socket.write(command === 'EHLO' || command === 'HELO' ? '250 smtp.example\r\n' : '250 ok\r\n');
        }
      });
      socket.write('220 smtp.example ESMTP\r\n');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    refusing?.close();
  });
  const server = serverPerSuite(() => {
    const { port } = refusing.address() as AddressInfo;
    return { config: { mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: MAIL_FROM } } };
  });
  const resend = (token: string, language: string) =>
    client(server.url).post('/api/auth/verify-email/resend/', { token, headers: { 'accept-language': language } });

  it('says the address does not exist, not to try again in a few minutes', async () => {
    rcptReply = '550 5.1.1 <user@example.com>: Recipient address rejected: User unknown';
    const user = await makeUser(server);
    const english = await resend(user.token, 'en');
    expect(english.status).toBe(409);
    expect(english.body).toEqual({ detail: 'The mail server says this e-mail address does not exist, so the link cannot be sent to it.' });
    expect((await resend(user.token, 'es')).body).toEqual({
      detail: 'El servidor de correo dice que esta dirección de correo no existe, así que no se le puede enviar el enlace.',
    });
  });

  it('still says to try again when the mail server refuses us, not the address', async () => {
    rcptReply = '554 5.7.1 <user@example.com>: Relay access denied';
    const user = await makeUser(server);
    const response = await resend(user.token, 'en');
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('mail_unavailable');
  });
});

describe('the account’s messages in Spanish', () => {
  const server = serverPerSuite();

  it('answers in the language the request asks for', async () => {
    const api = client(server.url);
    const es = { 'accept-language': 'es' };
    expect((await api.post('/api/auth/verify-email/', { json: { token: 'nope' }, headers: es })).body).toEqual({
      token: ['Este enlace no es válido o ha caducado.'],
    });
    const user = await makeUser(server);
    const wrong = await api.post('/api/users/me/password/', {
      token: user.token,
      json: { current_password: 'not-it', password: 'Brand-New-Secret-9', password2: 'Brand-New-Secret-9' },
      headers: es,
    });
    expect(wrong.body).toEqual({ current_password: ['La contraseña actual no es correcta. Vuelve a escribirla.'] });
    const deletion = await api.delete('/api/users/me/', { token: user.token, json: { password: 'not-it' }, headers: es });
    expect(deletion.body).toEqual({ password: ['La contraseña no es correcta.'] });
  });
});

describe('every e-mail the app sends', () => {
  it('names the app in its subject, in both languages: an inbox shows the subject before the sender', () => {
    for (const language of ['en', 'es'] as const) {
      const kinds = Object.keys(mailCopy[language]).filter((key) => typeof mailCopy[language][key as MailKind] === 'object') as MailKind[];
      expect(kinds).toHaveLength(5);
      for (const kind of kinds) {
        const mail = composeMail(kind, { email: 'ana@example.com', firstName: 'Ana', language }, 'https://eventmatch.test/verify-email?token=t');
        expect(mail.subject, `${language} ${kind}`).toContain('Eventmatch');
        expect(mail.html, `${language} ${kind}`).toContain(`<title>${mail.subject}</title>`);
      }
    }
  });
});
