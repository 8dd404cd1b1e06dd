import type { Language } from '../constants';

/**
 * The copy of every e-mail the server sends, in both languages. The server lays each out as plain
 * text and simple HTML (server/features/account/emails.ts); `{name}` is the recipient's first name.
 */
export interface MailCopy {
  subject: string;
  greeting: string;
  intro: string;
  /** The link's label in the HTML part; the text part shows the bare link on its own line. */
  action?: string;
  note: string;
}

/**
 * `setPassword`: the reset link, to an account with no password yet (made with Google); `passwordSet`:
 * the notice once that account has one.
 */
export type MailKind = 'verifyEmail' | 'resetPassword' | 'setPassword' | 'passwordChanged' | 'passwordSet';

export const mailCopy: Record<Language, Record<MailKind, MailCopy> & { signature: string; greetingWithoutName: string }> = {
  en: {
    signature: 'The Eventmatch team',
    /** In place of a kind's greeting when the name cannot be written in an e-mail (it reads as a link). */
    greetingWithoutName: 'Hi,',
    verifyEmail: {
      subject: 'Confirm your e-mail address for Eventmatch',
      greeting: 'Hi {name},',
      intro: 'Confirm that this is your e-mail address for Eventmatch by opening this link:',
      action: 'Confirm my e-mail address',
      note: 'The link works once, for 24 hours. If you did not create an Eventmatch account, ignore this e-mail.',
    },
    resetPassword: {
      subject: 'Reset your Eventmatch password',
      greeting: 'Hi {name},',
      intro: 'Someone asked to reset the password of your Eventmatch account. To choose a new password, open this link:',
      action: 'Choose a new password',
      note: 'The link works once, for 1 hour. If it was not you, ignore this e-mail: your password stays as it is.',
    },
    setPassword: {
      subject: 'Set a password for Eventmatch',
      greeting: 'Hi {name},',
      intro: 'You sign in to Eventmatch with Google. To also sign in with a password, open this link and choose one:',
      action: 'Choose a password',
      note: 'The link works once, for 1 hour. If it was not you, ignore this e-mail: your account stays as it is, with Google sign-in only.',
    },
    passwordChanged: {
      subject: 'Your Eventmatch password was changed',
      greeting: 'Hi {name},',
      intro: 'The password of your Eventmatch account was just changed, and every other session was logged out.',
      note: 'If it was not you, reset your password at once with "Forgot password?" on the login page.',
    },
    passwordSet: {
      subject: 'Your Eventmatch account has a password now',
      greeting: 'Hi {name},',
      intro: 'A password was just set for your Eventmatch account: you can sign in with it as well as with Google. Every other session was logged out.',
      note: 'If it was not you, reset your password at once with "Forgot password?" on the login page.',
    },
  },
  es: {
    signature: 'El equipo de Eventmatch',
    greetingWithoutName: 'Hola:',
    verifyEmail: {
      subject: 'Confirma tu correo electrónico para Eventmatch',
      greeting: 'Hola, {name}:',
      intro: 'Confirma que esta es tu dirección de correo para Eventmatch abriendo este enlace:',
      action: 'Confirmar mi correo',
      note: 'El enlace sirve una sola vez, durante 24 horas. Si no has creado una cuenta en Eventmatch, ignora este correo.',
    },
    resetPassword: {
      subject: 'Restablece tu contraseña de Eventmatch',
      greeting: 'Hola, {name}:',
      intro: 'Alguien ha pedido restablecer la contraseña de tu cuenta de Eventmatch. Para elegir una nueva, abre este enlace:',
      action: 'Elegir una contraseña nueva',
      note: 'El enlace sirve una sola vez, durante 1 hora. Si no has sido tú, ignora este correo: tu contraseña no cambia.',
    },
    setPassword: {
      subject: 'Crea una contraseña para Eventmatch',
      greeting: 'Hola, {name}:',
      intro: 'Inicias sesión en Eventmatch con Google. Para poder entrar también con contraseña, abre este enlace y elige una:',
      action: 'Elegir una contraseña',
      note: 'El enlace sirve una sola vez, durante 1 hora. Si no has sido tú, ignora este correo: tu cuenta sigue como está, solo con Google.',
    },
    passwordChanged: {
      subject: 'Tu contraseña de Eventmatch ha cambiado',
      greeting: 'Hola, {name}:',
      intro: 'Se acaba de cambiar la contraseña de tu cuenta de Eventmatch y se han cerrado todas las demás sesiones.',
      note: 'Si no has sido tú, restablece tu contraseña cuanto antes con «¿Has olvidado tu contraseña?» en la página de inicio de sesión.',
    },
    passwordSet: {
      subject: 'Tu cuenta de Eventmatch ya tiene contraseña',
      greeting: 'Hola, {name}:',
      intro: 'Se acaba de crear una contraseña para tu cuenta de Eventmatch: puedes entrar con ella además de con Google. Se han cerrado todas las demás sesiones.',
      note: 'Si no has sido tú, restablece tu contraseña cuanto antes con «¿Has olvidado tu contraseña?» en la página de inicio de sesión.',
    },
  },
};
