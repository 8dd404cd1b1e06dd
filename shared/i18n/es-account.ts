import type { enAccount } from './en-account';

/** Spanish, the public account pages. */
export const esAccount: Record<keyof typeof enAccount, string> = {
  'forgot.title': 'Restablece tu contraseña',
  'forgot.intro': 'Escribe el correo electrónico de tu cuenta y te enviaremos un enlace para elegir una contraseña nueva.',
  'forgot.submit': 'Enviarme un enlace',
  'forgot.sent': 'Si existe una cuenta con este correo, te hemos enviado un enlace para restablecer la contraseña. Revisa tu bandeja de entrada.',
  'forgot.backToLogin': 'Volver al inicio de sesión',
  'reset.title': 'Elige una contraseña nueva',
  'reset.deadTitle': 'Este enlace ya no funciona',
  'reset.password': 'Contraseña nueva',
  'reset.password2': 'Repite la contraseña nueva',
  'reset.submit': 'Guardar e iniciar sesión',
  'reset.invalid': 'Este enlace no es válido o ha caducado.',
  'reset.otherAccount': 'Has iniciado sesión como {me}. Al guardar esta contraseña, iniciarás sesión como {email} en su lugar.',
  'reset.askAgain': 'Pedir un enlace nuevo',
  'reset.done': 'Has cambiado tu contraseña. Se han cerrado tus otras sesiones.',
  'verify.title': 'Confirma tu correo electrónico',
  'verify.checking': 'Confirmando tu correo electrónico…',
  'verify.done': 'Tu correo electrónico está verificado. ¡Gracias!',
  'verify.doneOther': '{email} está verificado. Aquí has iniciado sesión con otra cuenta.',
  'verify.already': 'Tu correo electrónico ya está verificado.',
  'verify.invalid': 'Este enlace no es válido o ha caducado.',
  'verify.spent':
    'Este enlace ya no funciona: puede que ya se haya usado o que haya caducado. Si ya has confirmado tu correo, solo tienes que iniciar sesión. Si no, inicia sesión para pedir un enlace nuevo.',
  'verify.unreachable': 'No se pudo confirmar tu correo: no hay conexión. Inténtalo de nuevo cuando tengas conexión.',
  'verify.retry': 'Reintentar',
  'verify.toApp': 'Abrir la app',
  'verify.toLogin': 'Iniciar sesión',
  'verify.resent': 'Te hemos enviado un enlace nuevo. Revisa tu bandeja de entrada.',
  'verify.resend': 'Enviar un enlace nuevo',
};
