import type { Language } from '../constants';

/**
 * The server writes its messages in English (API.md's DRF-style envelope); the client shows them in
 * Spanish through this table. A message not listed is shown as the server wrote it.
 */
const SPANISH: Array<[RegExp, string]> = [
  [/^A user with that e-mail already exists\.$/, 'Ya existe un usuario con ese correo electrónico.'],
  [/^The two passwords do not match\.$/, 'Las dos contraseñas no coinciden.'],
  [/^Unable to log in with provided credentials\.$/, 'No se puede iniciar sesión con esas credenciales.'],
  [/^This password is entirely numeric\.$/, 'La contraseña no puede ser solo números.'],
  [/^This password is too common\.$/, 'Esta contraseña es demasiado común.'],
  [/^This password is too short\. It must contain at least (\d+) characters\.$/, 'La contraseña es demasiado corta. Debe tener al menos $1 caracteres.'],
  [/^The password is too similar to the (.+)\.$/, 'La contraseña se parece demasiado a tus datos ($1).'],
  [/^Enter a valid email address\.$/, 'Introduce un correo electrónico válido.'],
  [/^This field is required\.$/, 'Este campo es obligatorio.'],
  [/^This field may not be blank\.$/, 'Este campo no puede estar vacío.'],
  [/^This field may not be null\.$/, 'Este campo no puede ser nulo.'],
  [/^This list may not be empty\.$/, 'Esta lista no puede estar vacía.'],
  [/^Select at least one gender to match\.$/, 'Selecciona al menos un género.'],
  [/^The maximum age must be greater than or equal to the minimum age\.$/, 'La edad máxima debe ser mayor o igual que la mínima.'],
  [/^Please upload a primary profile picture$/, 'Sube una foto de perfil principal'],
  [/^Please select a date of birth$/, 'Selecciona una fecha de nacimiento'],
  [/^You must be at least (\d+) years old\.$/, 'Debes tener al menos $1 años.'],
  [/^Enter a date of birth within the last (\d+) years\.$/, 'Introduce una fecha de nacimiento de los últimos $1 años.'],
  [/^Ensure this field has at least (\d+) characters\.$/, 'Este campo debe tener al menos $1 caracteres.'],
  [/^Ensure this field has no more than (\d+) characters\.$/, 'Este campo no puede tener más de $1 caracteres.'],
  [/^Ensure this value is greater than or equal to (\d+)\.$/, 'El valor debe ser mayor o igual que $1.'],
  [/^Ensure this value is less than or equal to (\d+)\.$/, 'El valor debe ser menor o igual que $1.'],
  [/^Upload a valid image\.$/, 'Sube una imagen válida.'],
  [/^Request was throttled\. Expected available in (\d+) seconds?\.$/, 'Demasiadas solicitudes. Vuelve a intentarlo en $1 s.'],
  [/^Google did not accept this sign-in\. Please try again\.$/, 'Google no aceptó este inicio de sesión. Inténtalo de nuevo.'],
  [/^Your Google e-mail address is not verified\.$/, 'Tu correo de Google no está verificado.'],
  [/^Google sign-in is unavailable right now\. Please try again later\.$/, 'El inicio de sesión con Google no está disponible ahora. Inténtalo más tarde.'],
  [/^This link is invalid or has expired\.$/, 'Este enlace no es válido o ha caducado.'],
  [/^Your old password was entered incorrectly\. Please enter it again\.$/, 'La contraseña actual no es correcta. Vuelve a escribirla.'],
  [/^This account has no password yet\. Set one with "Forgot password\?" on the login page\.$/, 'Esta cuenta aún no tiene contraseña. Crea una con «¿Has olvidado tu contraseña?» en la página de inicio de sesión.'],
  [/^The password is incorrect\.$/, 'La contraseña no es correcta.'],
  [/^Type DELETE to confirm\.$/, 'Escribe DELETE para confirmar.'],
  [/^Your e-mail address is already verified\.$/, 'Tu correo electrónico ya está verificado.'],
  [
    /^An account with this e-mail already exists\. Log in with your password, or reset it, to connect Google\.$/,
    'Ya existe una cuenta con este correo. Inicia sesión con tu contraseña, o restablécela, para conectar Google.',
  ],
  [/^Payments are unavailable right now\. Please try again later\.$/, 'Los pagos no están disponibles ahora. Inténtalo más tarde.'],
];

export function localizeServerMessage(message: string, language: Language): string {
  if (language === 'en') return message;
  for (const [pattern, spanish] of SPANISH) if (pattern.test(message)) return message.replace(pattern, spanish);
  return message;
}
