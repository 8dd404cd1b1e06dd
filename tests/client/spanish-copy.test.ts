/**
 * The Spanish copy, as a Spanish speaker reads it (and the English beside it where it had the same
 * slip), in the app, the server's messages and the e-mails: one word for the deck, forms that fit
 * anyone whoever reads or is named, «» quotes, and what the pages say they do.
 */
import { describe, expect, it } from 'vitest';
import { DELETE_CONFIRMATION } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { mailCopy } from '../../shared/i18n/mail';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';

/** Every line of the e-mails in `language`, keyed `mail.<kind>.<part>`. */
function mailLines(language: 'en' | 'es'): Array<readonly [string, string]> {
  const { signature, greetingWithoutName, ...kinds } = mailCopy[language];
  const lines = Object.entries(kinds).flatMap(([kind, copy]) => Object.entries(copy).map(([part, text]) => [`mail.${kind}.${part}`, text] as const));
  return [['mail.signature', signature], ['mail.greetingWithoutName', greetingWithoutName], ...lines];
}

/** Every line the app, the server and its e-mails can say in `language`, with its key. */
const everything = (language: 'en' | 'es') => [
  ...Object.entries(language === 'es' ? es : en),
  ...Object.entries(SERVER_MESSAGES).map(([code, message]) => [code, message[language]] as const),
  ...mailLines(language),
];
const saying = (language: 'en' | 'es', pattern: RegExp) => everything(language).filter(([, text]) => pattern.test(text));

describe('the Spanish copy', () => {
  it('calls the deck «tarjetas» everywhere, never «baraja»', () => {
    expect(saying('es', /baraja/i)).toEqual([]);
    expect(es['landing.features.1.text']).toMatch(/^Tus tarjetas muestran/);
    // It read "al entrar en este sales de {name}, y su gente de tus tarjetas".
    expect(es['events.switch.body']).toBe('Solo puedes estar en un evento a la vez: si entras en este, sales de {name} y su gente desaparece de tus tarjetas.');
  });

  it('fits anyone, whoever reads it or is named in it: no masculine-only forms, no «le» for a person', () => {
    const masculine = /¿Listo|conectado|el uno al otro|\bel organizador|\bel denunciante|\blos invitados|\btus invitados|\bun usuario|\blos demás usuarios|\busuarios activos|\ble has denunciado|\bdenunciarle\b|\bverle\b|\blos dos veis|\bti mismo\b|\btodos los que\b|\banfitri[oó]n/i;
    expect(saying('es', masculine)).toEqual([]);
    expect(es['landing.download.title']).toBe('¿Todo listo para la fiesta?');
    // The sign-out questions' way to stay.
    expect(es['app.logoutUnsent.stay']).toBe('Mantener la sesión');
    expect(es['safety.block.text']).toBe('Dejaréis de veros. Vuestra conversación se eliminará.');
    // It read «no sabrá que la denuncia es tuya»: as if {name} would learn of a report, not from whom.
    expect(es['safety.report.private']).toBe('{name} no sabrá nada de tu denuncia.');
    expect(es['deck.event.changed']).toBe('La organización ha actualizado {name}.');
    expect(es['moderation.details']).toBe('Lo que escribió quien denunció');
    // The host's notice on the venue's Wi‑Fi: it read «todos los que estén».
    expect(es['host.verifyDoor']).toBe('Confirma tu correo para que toda la gente que esté en la wifi del local pueda crear su cuenta a la vez.');
    // An identity, as people name it.
    expect(es['gender.non_binary']).toBe('No binario');
    // The organizer's screen read «Pantalla del anfitrión», a host taken for a man.
    expect(es['host.title']).toBe('Panel de organización');
    // Refused on oneself: it read «a ti mismo».
    expect(SERVER_MESSAGES.cannot_block_self.es).toBe('No puedes bloquear tu propia cuenta.');
  });

  it('quotes with «», never "', () => {
    expect(saying('es', /["“”]/)).toEqual([]);
    expect(es['matches.noResults']).toBe('Sin resultados para «{query}»');
    expect(es['landing.features.3.text']).toContain('«¡Os gustáis!»');
  });

  it('says the way back from Forgot password as a way back, not "log in again"', () => {
    expect(es['forgot.backToLogin']).toBe('Volver al inicio de sesión');
    expect(en['forgot.backToLogin']).toBe('Back to login');
  });

  it('asks for the API’s word to delete an account as it must be typed', () => {
    // The word is the API's (`DELETE /api/users/me/` takes {confirm: "DELETE"}), matched exactly: capitals and all.
    for (const text of [es['settings.delete.confirmWord'], SERVER_MESSAGES.type_delete_to_confirm.es]) {
      expect(text).toBe(`Para confirmar, escribe ${DELETE_CONFIRMATION} en mayúsculas.`);
    }
  });

  it('says what it means: undo within five minutes, the app opened one way', () => {
    // "Durante 5 minutos" read as undoing for five minutes long.
    expect(es['subscribe.starter.2']).toBe('Deshaz un «no» o un salto en los 5 minutos siguientes');
    expect(es['verify.toApp']).toBe(es['nav.download']);
    expect(en['verify.toApp']).toBe(en['nav.download']);
  });

  it('says in the privacy policy that Settings downloads the data and deletes the account, no asking needed', () => {
    for (const [text, settings] of [
      [es['privacy.rights.text'], es['settings.title']],
      [en['privacy.rights.text'], en['settings.title']],
    ]) {
      expect(text).toContain(settings);
      expect(text).not.toMatch(/pedirnos que|ask us to/);
    }
  });

  it('names the login page’s link in the e-mails as the page shows it', () => {
    expect(mailCopy.es.passwordChanged.note).toContain(`«${es['login.forgot']}»`);
    expect(mailCopy.en.passwordChanged.note).toContain(`"${en['login.forgot']}"`);
  });

  it('names the portal’s cancel as its confirm does, as «Gestionar la suscripción» does: with the article', () => {
    // The button read «Cancelar la suscripción», the confirm it opens «Cancelar suscripción».
    expect(es['portal.confirm.yes']).toBe(es['portal.cancel']);
    expect(es['portal.cancel']).toBe('Cancelar la suscripción');
    expect(en['portal.confirm.yes']).toBe(en['portal.cancel']);
  });

  it('says a link just sent as Spain says it, the same on the banner as in Settings: «Te hemos enviado»', () => {
    // The banner read «Te enviamos un enlace a…», Settings and the verify page «Te hemos enviado…».
    expect(es['app.verifyBanner']).toBe(es['settings.password.linkSent']);
    expect(saying('es', /^Te enviamos/)).toEqual([]);
  });

  it('says checking in to an event as «entrar», as the event’s pages do, never as signing up («registrarse»)', () => {
    // The new-event form asked «Cómo se registra la gente», which reads as creating an account.
    expect(es['events.new.joinMode']).toBe('Cómo entra la gente');
    expect(Object.entries(es).filter(([key, text]) => /^(events|host|eventPage|deck\.event)\./.test(key) && /registr/i.test(text))).toEqual([
      ['eventPage.passKept', 'Te guardamos el sitio 30 minutos mientras te registras: no hace falta volver a escanear.'],
    ]);
  });

  it('says a list’s way to more in one way on every screen, as the English does', () => {
    // Chats, likes and events said «Ver más»; blocked people, ended chats and reports «Mostrar más».
    const more = Object.keys(en).filter((key) => en[key as keyof typeof en] === 'Show more');
    expect(more.length).toBeGreaterThan(3);
    expect(new Set(more.map((key) => es[key as keyof typeof es]))).toEqual(new Set(['Ver más']));
  });

  it('says a report resolved with a ban banned the account: the report itself was not put on hold', () => {
    // "Resolución: Suspendida", of a report (una denuncia), read as a report whose resolution waits.
    expect(es['moderation.resolution.ban']).toBe('Cuenta suspendida');
    expect(es['moderation.resolution.dismiss']).toBe('Descartada');
  });
});

describe('the English copy', () => {
  it('spells as American English does, as the rest of it does («canceled», «organizer»): no British «behaviour» or «cancelling»', () => {
    // A reason to report read "Behaviour in person", the test portal "Cancelling", beside "canceled" everywhere else.
    expect(saying('en', /behaviour|colour|favourite|cancell|organis|recognis/i)).toEqual([]);
    expect(en['safety.reason.offline_behaviour']).toBe('Behavior in person');
  });

  it('writes "e-mail", as the rest of the app does, also in the server’s messages and e-mails', () => {
    // Not the {email} a line fills in.
    expect(saying('en', /(?<!\{)\bemail\b/i)).toEqual([]);
    expect(SERVER_MESSAGES.invalid_email.en).toBe('Enter a valid e-mail address.');
  });

  it('keeps "e-mail" whole at the end of a line: the app’s copy writes it with a non-breaking hyphen', () => {
    // A 320 px phone headed the verification page "Confirm your e-" / "mail address". (The server's
    // messages keep the hyphen API.md writes.)
    expect(Object.entries(en).filter(([, text]) => /e-mail/i.test(text))).toEqual([]);
    expect(en['verify.title']).toBe('Confirm your e\u2011mail address');
    expect(en['auth.email']).toBe('E\u2011mail');
  });

  it('keeps "Wi-Fi" whole at the end of a line, with a non-breaking hyphen', () => {
    // The host screen's notices broke as "the venue’s Wi-" / "Fi can sign up" at 328–340 px.
    expect(Object.entries(en).filter(([, text]) => /Wi-Fi/i.test(text))).toEqual([]);
    expect(en['host.verifyDoor']).toContain('venue’s Wi\u2011Fi');
  });
});

describe('the copy in both languages', () => {
  it('keeps a number and its «%» on one line: Spanish spaces them with a non-breaking space', () => {
    // A photo's tile (94 px of text on a 360 px phone) read "Subiendo… 0" / "%" while it uploaded.
    for (const language of ['en', 'es'] as const) expect(saying(language, / %/), language).toEqual([]);
    expect(es['profile.uploading']).toBe('Subiendo… {percent}\u00a0%');
  });

  it('trails off with an ellipsis, «…», never three dots: in the app, the server’s messages and the e-mails', () => {
    for (const language of ['en', 'es'] as const) expect(saying(language, /\.\.\./), language).toEqual([]);
    expect(es['app.loading']).toBe('Cargando…');
    expect(en['app.loading']).toBe('Loading…');
    expect(es['chat.placeholder']).toBe('Escribe un mensaje…');
  });

  it('labels the full-width buttons in words a 320-pixel phone fits on one line', () => {
    // «Empezar la prueba gratis», «Mostrar en pantalla grande», «Ver personas bloqueadas», «Cerrar sesión
    // en todas partes» and «Abrir los gráficos de actividad» wrapped to two lines (the last in English too).
    const keys = ['subscribe.choose', 'host.present', 'settings.blocked.open', 'settings.sessions.submit', 'settings.admin.open'] as const;
    for (const key of keys) for (const text of [es[key], en[key]]) expect(text.length, key).toBeLessThanOrEqual(22);
    // The account deletion's last button read «Eliminar mi cuenta para siempre», "Delete my account forever".
    for (const text of [es['settings.delete.confirm'], en['settings.delete.confirm']]) expect(text.length).toBeLessThanOrEqual(22);
  });
});
