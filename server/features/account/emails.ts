import type { Language } from '../../../shared/constants';
import { format } from '../../../shared/i18n/format';
import { type MailKind, mailCopy } from '../../../shared/i18n/mail';
import type { MailMessage } from '../../lib/mailer';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/**
 * What a mail program may turn into a link: a scheme (`https:`), `www.`, an e-mail address, or a
 * name with a dot (any of the full stops an address may be typed with) before two letters or digits,
 * as a domain has. A first name rarely has one; one that does is only left out of the greeting.
 */
const READS_AS_LINK = /[\p{L}\p{N}+.-]:|\bwww\.|@|[^\s.。．｡][.。．｡][\p{L}\p{N}-]{2}/iu;

/**
 * One e-mail in the recipient's language: a plain-text part with the link on a line of its own, and
 * a simple HTML part saying the same. Every e-mail the server sends is laid out here.
 */
export function composeMail(
  kind: MailKind,
  recipient: { email: string; firstName: string; language: Language },
  link?: string,
): MailMessage {
  const copy = mailCopy[recipient.language][kind];
  const { signature, greetingWithoutName } = mailCopy[recipient.language];
  // The name is whatever the registration said (anyone can register someone else's address): words on
  // the greeting's line, never lines of their own that could pass for the link. A name that holds a
  // link or an address is left out: mail programs make "evil.com/reset" clickable wherever it stands,
  // and a stranger's link in our e-mail would borrow our good name.
  const name = recipient.firstName.replace(/\s+/g, ' ').trim();
  const greeting = READS_AS_LINK.test(name) ? greetingWithoutName : format(copy.greeting, { name });

  const text = [greeting, copy.intro, ...(link ? [link] : []), copy.note, `— ${signature}`].join('\n\n') + '\n';

  const paragraph = (content: string) => `<p style="margin:0 0 16px">${content}</p>`;
  const button =
    link && copy.action
      ? paragraph(
          `<a href="${escapeHtml(link)}" style="display:inline-block;padding:12px 20px;border-radius:8px;background:#e11d48;color:#ffffff;text-decoration:none;font-weight:600">${escapeHtml(copy.action)}</a>`,
        ) + paragraph(`<a href="${escapeHtml(link)}" style="color:#e11d48;word-break:break-all">${escapeHtml(link)}</a>`)
      : '';
  const html = `<!doctype html>
<html lang="${recipient.language}">
<head><meta charset="utf-8"><title>${escapeHtml(copy.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f8fafc;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#0f172a;font-size:16px;line-height:1.5">
<div style="max-width:520px;margin:0 auto;padding:24px;background:#ffffff;border-radius:12px">
${paragraph(escapeHtml(greeting))}
${paragraph(escapeHtml(copy.intro))}
${button}
${paragraph(`<span style="color:#475569">${escapeHtml(copy.note)}</span>`)}
${paragraph(escapeHtml(`— ${signature}`))}
</div>
</body>
</html>
`;
  return { to: recipient.email, subject: copy.subject, text, html, link };
}
