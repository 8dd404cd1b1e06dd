import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ChangePasswordInput,
  ExportArchive,
  DeleteAccountInput,
  LanguageInput,
  PasswordResetCheckInput,
  PasswordResetConfirmInput,
  PasswordResetInput,
  PasswordResetLink,
  VerifyEmailInput,
  EmailVerified,
} from '../../../shared/schemas/account';
import { languageOf, renderServerMessage } from '../../../shared/i18n/server-messages';
import { TokenResponse } from '../../../shared/schemas/auth';
import { Detail, NoBody } from '../../../shared/schemas/common';
import { noBody, withoutToken } from '../../plugins/api-docs';
import { NotFound } from '../../errors';
import type { Language } from '../../../shared/constants';
import { requestLanguage } from '../../lib/language';
import { rememberLanguage } from '../auth/service';
import { languageFollower } from '../payments/checkout';
import { currentUser } from '../../plugins/auth';
import { announceDeletion, checkDeletionConsent, eraseAccount } from './deletion';
import { exportArchive } from './export';
import { addressOf, requestSubject } from '../../lib/limits';
import { MailUnavailable } from '../../lib/mailer';
import {
  changePassword,
  checkPasswordReset,
  confirmPasswordReset,
  EMAIL_VERIFIED,
  RESET_REQUESTED,
  type MailDeps,
  type NewPasswordSession,
  resendVerificationEmail,
  sendPasswordChangedEmail,
  sendPasswordResetEmail,
  VERIFICATION_SENT,
  verifyEmail,
} from './service';

/** The account: verified e-mail, password reset and change, sessions, deletion, export. */
const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const mail = (request: FastifyRequest): MailDeps => ({ db: app.db, mailer: app.mailer, publicUrl: app.publicUrlFor(request) });
  const hashOptions = app.config.argon2;
  const passwordCheck = app.limits.hook('password:check');
  const stripeLanguage = app.stripe ? languageFollower(app.db, app.stripe) : null;
  if (stripeLanguage) app.addHook('onClose', () => stripeLanguage.close(app.closeGrace.left));

  /**
   * The language the app asks in becomes the account's: its e-mails are written in it from here on, and
   * the user's other phones and tabs where no language was chosen read the account again and show it.
   * Every write of the account's language goes through here, so that none leaves them in the old one.
   */
  async function rememberLanguageOf(userId: number, language: Language | null) {
    if (await rememberLanguage(app.db, userId, language)) app.publish([userId], 'account:changed');
  }

  /**
   * After a new password: the sessions it ended are forgotten (sockets too, on every instance), the
   * owner is told, in the language of the app they set it in; of a repeat, by the change it repeats.
   * `first`: the account had none (made with Google).
   */
  async function afterNewPassword(userId: number, session: NewPasswordSession, request: FastifyRequest, first = false) {
    await app.suspendedTokens(session.ended);
    await rememberLanguageOf(userId, requestLanguage(request));
    if (!session.repeat) app.mailer.later(() => sendPasswordChangedEmail(mail(request), userId, first));
  }

  /**
   * A link that worked is given back to its address's hour (`email-link:ip`): the limit bounds the
   * tries of tokens that cannot be guessed, and a venue's crowd, behind its Wi-Fi's one address,
   * opens a link each, all good ones, in the same hour.
   */
  const linkWorked = (request: FastifyRequest) => app.limits.unhit('email-link:ip', addressOf(request));

  app.post('/api/auth/verify-email/', {
    schema: { ...withoutToken, body: VerifyEmailInput, response: { 200: EmailVerified } },
    onRequest: app.limits.hook('email-link:ip', addressOf),
    handler: async (request) => {
      const { userId, email } = await verifyEmail(app.db, request.body.token);
      await linkWorked(request);
      // The link is often opened on another device, or in a new tab: the open apps drop their banner.
      app.publish([userId], 'account:changed');
      // The address too: opened where another account is signed in (a shared phone), the page says whose it was.
      return { detail: renderServerMessage(EMAIL_VERIFIED, languageOf(request.headers['accept-language'])), email };
    },
  });

  app.post('/api/auth/verify-email/resend/', {
    schema: { ...noBody, response: { 202: Detail } },
    onRequest: [app.authenticate, app.limits.hook('verify-email:attempt'), app.limits.hook('verify-email:resend')],
    handler: async (request, reply) => {
      try {
        const { id } = currentUser(request);
        await resendVerificationEmail(mail(request), id, () => rememberLanguageOf(id, requestLanguage(request)));
      } catch (error) {
        // A link that did not go out is not one of the hour's five.
        if (error instanceof MailUnavailable) await app.limits.unhit('verify-email:resend', requestSubject(request));
        throw error;
      }
      return reply.code(202).send({ detail: renderServerMessage(VERIFICATION_SENT, languageOf(request.headers['accept-language'])) });
    },
  });

  app.post('/api/auth/password-reset/', {
    schema: { ...withoutToken, body: PasswordResetInput, response: { 202: Detail } },
    onRequest: app.limits.hook('password-reset:ip', addressOf),
    preHandler: app.limits.hook('password-reset:email', (request) => (request.body as PasswordResetInput).email),
    handler: async (request, reply) => {
      // Looked up and sent beside the request: the answer says the same, as fast, for any address.
      const { email } = request.body;
      app.mailer.later(() => sendPasswordResetEmail(mail(request), email));
      return reply.code(202).send({ detail: renderServerMessage(RESET_REQUESTED, languageOf(request.headers['accept-language'])) });
    },
  });

  app.post('/api/auth/password-reset/check/', {
    schema: { ...withoutToken, body: PasswordResetCheckInput, response: { 200: PasswordResetLink } },
    onRequest: app.limits.hook('email-link:ip', addressOf),
    // The address too: opened where another account is signed in, the page says whose password it sets.
    handler: async (request) => {
      const link = await checkPasswordReset(app.db, request.body.token);
      await linkWorked(request);
      return link;
    },
  });

  app.post('/api/auth/password-reset/confirm/', {
    schema: { ...withoutToken, body: PasswordResetConfirmInput, response: { 200: TokenResponse } },
    onRequest: app.limits.hook('email-link:ip', addressOf),
    handler: async (request) => {
      // It verifies the e-mail too, but no open app needs telling: it ends every other session.
      const { userId, session, first } = await confirmPasswordReset(app.db, request.body, hashOptions);
      await linkWorked(request);
      await afterNewPassword(userId, session, request, first);
      return { token: session.token };
    },
  });

  app.put('/api/users/me/language/', {
    schema: { body: LanguageInput, response: { 204: NoBody } },
    onRequest: [app.authenticate, app.limits.hook('language')],
    handler: async (request, reply) => {
      // Switched in the app: the e-mails that follow (a password reset, say) are written in it too.
      await rememberLanguageOf(currentUser(request).id, request.body.language);
      // And Stripe's receipts and invoices for a subscriber's renewals, behind the answer.
      stripeLanguage?.follow(currentUser(request).id, request.log);
      return reply.code(204).send(null);
    },
  });

  app.post('/api/users/me/password/', {
    schema: { body: ChangePasswordInput, response: { 200: TokenResponse } },
    onRequest: [app.authenticate, passwordCheck],
    handler: async (request) => {
      const { id } = currentUser(request);
      const session = await changePassword(app.db, id, request.body, hashOptions);
      await afterNewPassword(id, session, request);
      return { token: session.token };
    },
  });

  app.delete('/api/users/me/', {
    // No body at all is asked, like an empty one, for what the account needs (its password, or DELETE).
    schema: { body: DeleteAccountInput.nullish(), response: { 204: NoBody } },
    onRequest: [app.authenticate, passwordCheck],
    handler: async (request, reply) => {
      const { id } = currentUser(request);
      await checkDeletionConsent(app.db, id, request.body ?? {});
      // Billing ended at Stripe first, so that a Stripe outage (503, try again) leaves the account whole,
      // not billed without one: their open checkouts expired, their Stripe customer deleted with every
      // subscription of it. Then the account, and once it is gone, its sessions, here and on every instance.
      const deleted = await eraseAccount(
        {
          db: app.db,
          stripe: app.stripe,
          media: app.media,
          log: request.log,
          postHogErasure: app.analytics.erasure,
          endSessions: (userId, tokenHashes) => {
            // Their open phones hear why before their sockets drop (sent ahead of the revocation, on the
            // same path to each instance), as for a ban: not a session closed from elsewhere.
            app.publishBeforeDrop(userId, 'account:deleted');
            return app.suspendedTokens(tokenHashes);
          },
          announce: (userId, gone) => announceDeletion({ publish: app.publish, left: (user, eventId) => app.eventLive.left(user, eventId) }, userId, gone),
        },
        id,
      );
      if (!deleted) throw new NotFound();
      // Here the events keep their counts without the person; PostHog keeps them by user id, so there
      // they go: recorded with the deletion, done in the background once no batch of theirs can still be
      // on its way there, and again later until PostHog has done it. The answer waits for none of it.
      if (app.analytics.erasure) app.analytics.eraseWhenDue();
      request.log.info({ userId: id, conversations: deleted.conversations.length }, 'account deleted');
      return reply.code(204).send(null);
    },
  });

  app.get('/api/users/me/export/', {
    // A HEAD would build the whole archive to throw it away, and spend one of the day's three.
    exposeHeadRoute: false,
    schema: { response: { 200: { content: { 'application/zip': { schema: ExportArchive } } } } },
    onRequest: [app.authenticate, app.limits.hook('export')],
    handler: async (request, reply) => {
      const { id } = currentUser(request);
      const date = new Date().toISOString().slice(0, 10);
      return reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="eventmatch-export-${date}.zip"`)
        .header('Cache-Control', 'no-store')
        // A stream goes out as it is (Fastify serializes no stream); ExportArchive only documents it.
        .send(exportArchive(app.db, app.media, app.config.stripe.lookupKeys, id, request.log) as unknown as File);
    },
  });
};

export default accountRoutes;
