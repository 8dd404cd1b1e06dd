import path from 'node:path';
import fp from 'fastify-plugin';
import { createMailer, type Mailer } from '../lib/mailer';

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer;
  }
}

/** The app's e-mail: SMTP_URL when set, `.eml` files in DATA_DIR/outbox/ otherwise. */
export default fp(
  async (app) => {
    const { mail, dataDir } = app.config;
    const mailer = createMailer({ smtpUrl: mail.smtpUrl, from: mail.from, outboxDir: path.join(dataDir, 'outbox'), log: app.log });
    app.decorate('mailer', mailer);
    // Before the database closes: work in flight reads it. A stalled mail server is not waited for long,
    // and no longer than what is left of the close's grace.
    app.addHook('preClose', () => mailer.drain(app.closeGrace.left));
    app.addHook('onClose', () => mailer.close());
  },
  { name: 'mail' },
);
