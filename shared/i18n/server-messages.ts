import { type Language, LANGUAGES } from '../constants';
import { EMAIL_TAKEN_EN, EMAIL_TAKEN_ES } from './email-taken';
import { format, type MessageVars } from './format';

/**
 * What the server says in its answers (field errors, details), by code, in both languages. The server
 * keeps a message as its code until it answers, then writes it in the language the request asked for
 * (`Accept-Language`; English when it names neither), so a client shows messages as they come: it
 * never translates them, nor decides anything by their words (it has the status and, where one
 * applies, the body's `code`: shared/error-codes.ts), but for the two exceptions their modules name
 * (`email-taken.ts`; a switch of language under a form's errors, client/lib/translate-errors.ts).
 *
 * A server message is made with `serverText('code', params)`; `{name}` in the copy takes a param.
 * A plain string still works where a message has no code yet: it is sent as written, in English.
 */
export const SERVER_MESSAGES = {
  // Field shapes (the zod messages of shared/schemas/zod.ts, in Django REST framework's words).
  required: { en: 'This field is required.', es: 'Este campo es obligatorio.' },
  not_null: { en: 'This field may not be null.', es: 'Este campo no puede ser nulo.' },
  not_string: { en: 'Not a valid string.', es: 'No es un texto válido.' },
  not_integer: { en: 'A valid integer is required.', es: 'Se necesita un número entero válido.' },
  not_boolean: { en: 'Must be a valid boolean.', es: 'Debe ser verdadero o falso.' },
  not_list: { en: 'Expected a list of items.', es: 'Se esperaba una lista.' },
  not_object: { en: 'Invalid data. Expected a dictionary.', es: 'Datos no válidos. Se esperaba un objeto.' },
  invalid: { en: 'Invalid value.', es: 'Valor no válido.' },
  blank: { en: 'This field may not be blank.', es: 'Este campo no puede estar vacío.' },
  min_length: { en: 'Ensure this field has at least {min} characters.', es: 'Este campo debe tener al menos {min} caracteres.' },
  max_length: { en: 'Ensure this field has no more than {max} characters.', es: 'Este campo no puede tener más de {max} caracteres.' },
  list_empty: { en: 'This list may not be empty.', es: 'Esta lista no puede estar vacía.' },
  min_items: { en: 'Ensure this list has at least {min} items.', es: 'La lista debe tener al menos {min} elementos.' },
  max_items: { en: 'Ensure this list has no more than {max} items.', es: 'La lista no puede tener más de {max} elementos.' },
  min_value: { en: 'Ensure this value is greater than or equal to {min}.', es: 'El valor debe ser mayor o igual que {min}.' },
  max_value: { en: 'Ensure this value is less than or equal to {max}.', es: 'El valor debe ser menor o igual que {max}.' },
  invalid_choice: { en: '"{value}" is not a valid choice.', es: '«{value}» no es una opción válida.' },
  invalid_email: { en: 'Enter a valid e-mail address.', es: 'Introduce un correo electrónico válido.' },
  invalid_uuid: { en: 'Must be a valid UUID.', es: 'Debe ser un UUID válido.' },
  invalid_format: { en: 'Invalid format.', es: 'Formato no válido.' },
  null_characters: { en: 'Null characters are not allowed.', es: 'No se admiten caracteres nulos.' },
  malformed_text: { en: 'This text holds half of a character: type it again.', es: 'Este texto contiene medio carácter: vuelve a escribirlo.' },
  date_format: {
    en: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
    es: 'La fecha tiene un formato incorrecto. Usa este formato: AAAA-MM-DD.',
  },
  malformed: { en: 'Malformed request.', es: 'Solicitud mal formada.' },
  json_parse_error: { en: 'JSON parse error: the body is not valid JSON.', es: 'Error al leer el JSON: el contenido no es JSON válido.' },
  too_many_values: {
    en: 'Request body holds too many values.',
    es: 'El contenido de la solicitud tiene demasiados valores.',
  },
  body_too_large: { en: 'Request body is too large.', es: 'El contenido de la solicitud es demasiado grande.' },
  unsupported_media_type: { en: 'Unsupported media type in request.', es: 'Tipo de contenido no admitido en la solicitud.' },
  headers_too_large: { en: 'Request headers are too large.', es: 'Las cabeceras de la solicitud son demasiado grandes.' },
  request_timeout: { en: 'Request timed out.', es: 'La solicitud tardó demasiado en llegar.' },
  expectation_failed: { en: 'Only "Expect: 100-continue" is supported.', es: 'Solo se admite «Expect: 100-continue».' },
  missing_host: { en: 'The Host header is missing.', es: 'Falta la cabecera Host.' },
  websocket_only: { en: 'This address takes WebSocket connections only.', es: 'Esta dirección solo admite conexiones WebSocket.' },
  realtime_session_unknown: {
    en: 'This connection is no longer open: connect again.',
    es: 'Esta conexión ya no está abierta: vuelve a conectarte.',
  },
  realtime_version_unsupported: {
    en: 'This version of the app can no longer connect: reload the page.',
    es: 'Esta versión de la app ya no puede conectarse: recarga la página.',
  },
  date_time_format: {
    en: 'Datetime has wrong format. Use this format instead: YYYY-MM-DDThh:mm:ss[.uuuuuu] followed by Z or an offset (+HH:MM or -HH:MM).',
    es: 'La fecha y hora tienen un formato incorrecto. Usa este formato: AAAA-MM-DDThh:mm:ss[.uuuuuu] seguido de Z o de un desfase (+HH:MM o -HH:MM).',
  },

  // Status details.
  not_authenticated: { en: 'Authentication credentials were not provided.', es: 'No se han enviado credenciales.' },
  invalid_token: { en: 'Invalid token.', es: 'La sesión no es válida.' },
  permission_denied: { en: 'You do not have permission to perform this action.', es: 'No tienes permiso para hacer esto.' },
  not_found: { en: 'Not found.', es: 'No encontrado.' },
  method_not_allowed: { en: 'Method "{method}" not allowed.', es: 'Método «{method}» no permitido.' },
  invalid_payload: { en: 'Invalid payload.', es: 'Datos no válidos.' },
  server_error: { en: 'A server error occurred.', es: 'Se produjo un error en el servidor.' },
  server_restarting: {
    en: 'The server is restarting; send again after reconnecting.',
    es: 'El servidor se está reiniciando; vuelve a enviarlo cuando se reconecte.',
  },
  throttled: {
    en: 'Request was throttled. Expected available in {seconds} seconds.',
    es: 'Demasiadas solicitudes. Vuelve a intentarlo en {seconds} s.',
  },

  // Accounts.
  email_taken: { en: EMAIL_TAKEN_EN, es: EMAIL_TAKEN_ES },
  passwords_differ: { en: 'The two passwords do not match.', es: 'Las dos contraseñas no coinciden.' },
  invalid_credentials: { en: 'Unable to log in with provided credentials.', es: 'No se puede iniciar sesión con esas credenciales.' },
  password_numeric: { en: 'This password is entirely numeric.', es: 'La contraseña no puede ser solo números.' },
  password_common: { en: 'This password is too common.', es: 'Esta contraseña es demasiado común.' },
  password_short: {
    en: 'This password is too short. It must contain at least {min} characters.',
    es: 'La contraseña es demasiado corta. Debe tener al menos {min} caracteres.',
  },
  password_like_email: { en: 'The password is too similar to the e-mail address.', es: 'La contraseña se parece demasiado a tu correo electrónico.' },
  password_like_first_name: { en: 'The password is too similar to the first name.', es: 'La contraseña se parece demasiado a tu nombre.' },
  password_like_last_name: { en: 'The password is too similar to the last name.', es: 'La contraseña se parece demasiado a tu apellido.' },
  account_suspended: { en: 'This account has been suspended.', es: 'Esta cuenta ha sido suspendida.' },
  account_deleted: { en: 'This account has been deleted.', es: 'Esta cuenta ha sido eliminada.' },
  google_disabled: { en: 'Google sign-in is not enabled on this server.', es: 'El inicio de sesión con Google no está activado en este servidor.' },
  google_rejected: {
    en: 'Google did not accept this sign-in. Please try again.',
    es: 'Google no aceptó este inicio de sesión. Inténtalo de nuevo.',
  },
  google_no_email: {
    en: 'Google did not share an e-mail address for this account.',
    es: 'Google no compartió un correo electrónico de esta cuenta.',
  },
  google_unverified: { en: 'Your Google e-mail address is not verified.', es: 'Tu correo de Google no está verificado.' },
  google_other_account: {
    en: 'This e-mail address is already linked to another Google account.',
    es: 'Este correo ya está vinculado a otra cuenta de Google.',
  },
  google_needs_verified_email: {
    en: 'An account with this e-mail already exists. Log in with your password, or reset it, to connect Google.',
    es: 'Ya existe una cuenta con este correo. Inicia sesión con tu contraseña, o restablécela, para conectar Google.',
  },
  // The account.
  link_invalid: { en: 'This link is invalid or has expired.', es: 'Este enlace no es válido o ha caducado.' },
  verification_sent: {
    en: 'We have sent you a new link to confirm your e-mail address.',
    es: 'Te hemos enviado un nuevo enlace para confirmar tu correo electrónico.',
  },
  reset_requested: {
    en: 'If an account exists for this e-mail, we have sent a link to reset the password.',
    es: 'Si existe una cuenta con este correo, te hemos enviado un enlace para restablecer la contraseña.',
  },
  email_verified: { en: 'Your e-mail address is verified.', es: 'Tu correo electrónico está verificado.' },
  already_verified: { en: 'Your e-mail address is already verified.', es: 'Tu correo electrónico ya está verificado.' },
  wrong_current_password: {
    en: 'Your old password was entered incorrectly. Please enter it again.',
    es: 'La contraseña actual no es correcta. Vuelve a escribirla.',
  },
  no_password_yet: {
    en: 'This account has no password yet. Set one with "Forgot password?" on the login page.',
    es: 'Esta cuenta aún no tiene contraseña. Crea una con «¿Has olvidado tu contraseña?» en la página de inicio de sesión.',
  },
  wrong_password: { en: 'The password is incorrect.', es: 'La contraseña no es correcta.' },
  type_delete_to_confirm: { en: 'Type DELETE to confirm.', es: 'Para confirmar, escribe DELETE en mayúsculas.' },
  mail_unavailable: {
    en: 'The e-mail could not be sent just now. Please try again in a few minutes.',
    es: 'No se ha podido enviar el correo ahora. Inténtalo de nuevo en unos minutos.',
  },
  mail_address_refused: {
    en: 'The mail server says this e-mail address does not exist, so the link cannot be sent to it.',
    es: 'El servidor de correo dice que esta dirección de correo no existe, así que no se le puede enviar el enlace.',
  },
  google_unavailable: {
    en: 'Google sign-in is unavailable right now. Please use your e-mail and password.',
    es: 'El inicio de sesión con Google no está disponible ahora. Usa tu correo y contraseña.',
  },

  // Profiles and photos.
  profile_save_in_progress: {
    en: 'Your last change is still being saved. Try again in a moment.',
    es: 'Tu último cambio aún se está guardando. Inténtalo de nuevo en un momento.',
  },
  profile_changed: {
    en: 'Your profile was changed on another device since you opened it. Here it is as it is now: make your changes again.',
    es: 'Tu perfil cambió en otro dispositivo desde que lo abriste. Aquí está tal como es ahora: vuelve a hacer tus cambios.',
  },
  busy_try_again: {
    en: 'This could not be saved just now, as something else changed at the same moment. Please try again.',
    es: 'No se pudo guardar justo ahora porque otra cosa cambió en el mismo momento. Inténtalo de nuevo.',
  },
  database_unreachable: {
    en: 'The server could not reach its data just now. Please try again in a moment.',
    es: 'El servidor no pudo acceder a sus datos justo ahora. Inténtalo de nuevo en un momento.',
  },
  media_unavailable: {
    en: 'Photos are unavailable right now. Please try again in a moment.',
    es: 'Las fotos no están disponibles ahora. Inténtalo de nuevo en un momento.',
  },
  profile_incomplete_like: {
    en: 'Complete your profile before you like anyone.',
    es: 'Completa tu perfil antes de dar un like.',
  },
  primary_photo_required: { en: 'Please upload a primary profile picture', es: 'Sube una foto de perfil principal' },
  date_of_birth_required: { en: 'Please select a date of birth', es: 'Selecciona una fecha de nacimiento' },
  min_age: { en: 'You must be at least {age} years old.', es: 'Debes tener al menos {age} años.' },
  time_zone_format: { en: 'Enter a time zone such as Europe/Madrid.', es: 'Indica una zona horaria como Europe/Madrid.' },
  max_age: {
    en: 'Enter a date of birth within the last {years} years.',
    es: 'Introduce una fecha de nacimiento de los últimos {years} años.',
  },
  genders_required: { en: 'Select at least one gender to match.', es: 'Selecciona al menos un género.' },
  genders_once: { en: 'Each gender can be selected once.', es: 'Cada género se puede elegir una sola vez.' },
  age_range: {
    en: 'The maximum age must be greater than or equal to the minimum age.',
    es: 'La edad máxima debe ser mayor o igual que la mínima.',
  },
  invalid_image: { en: 'Upload a valid image.', es: 'Sube una imagen válida.' },
  not_an_image: {
    en: 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.',
    es: 'Sube una imagen válida. El archivo que has subido no es una imagen o está dañado.',
  },
  unsupported_image: { en: 'Unsupported image type. Use PNG, JPG, GIF or WebP.', es: 'Tipo de imagen no admitido. Usa PNG, JPG, GIF o WebP.' },
  image_too_large: { en: 'The image is too large: 10 MB at most.', es: 'La imagen es demasiado grande: 10 MB como máximo.' },
  photo_twice: { en: 'This is the same photo as photo {n}.', es: 'Es la misma foto que la foto {n}.' },
  too_many_pixels: {
    en: 'The image has too many pixels: {megapixels} megapixels at most.',
    es: 'La imagen tiene demasiados píxeles: {megapixels} megapíxeles como máximo.',
  },
  image_side_too_long: {
    en: 'The image is too tall or too wide: {pixels} pixels a side at most.',
    es: 'La imagen es demasiado alta o demasiado ancha: {pixels} píxeles por lado como máximo.',
  },
  no_file: { en: 'No file was submitted.', es: 'No se ha enviado ningún archivo.' },
  upload_one_file: {
    en: 'Send the image alone, in the field "file", with no other fields.',
    es: 'Envía solo la imagen, en el campo «file», sin otros campos.',
  },
  upload_multipart: {
    en: 'Send the image as multipart/form-data, field "file".',
    es: 'Envía la imagen como multipart/form-data, en el campo «file».',
  },
  not_a_file: {
    en: 'The submitted data was not a file. Check the encoding type on the form.',
    es: 'Lo enviado no es un archivo. Revisa la codificación del formulario.',
  },

  // Matching and chat.
  cannot_react_to_self: { en: 'You cannot react to yourself.', es: 'No puedes reaccionar a tu propio perfil.' },
  invalid_cursor: { en: 'Invalid cursor.', es: 'Cursor no válido.' },
  client_id_reused: {
    en: 'This client_id was already used for another message.',
    es: 'Este client_id ya se usó para otro mensaje.',
  },
  daily_likes_exhausted: {
    en: 'You have used your {limit} likes of the last 24 hours.',
    es: 'Has usado tus {limit} likes de las últimas 24 horas.',
  },
  nothing_to_undo: {
    en: 'There is nothing to undo: only a dislike or a skip of the last 5 minutes can be taken back.',
    es: 'No hay nada que deshacer: solo se puede recuperar un «no» o un salto de los últimos 5 minutos.',
  },

  // Safety and moderation.
  cannot_block_self: { en: 'You cannot block yourself.', es: 'No puedes bloquear tu propia cuenta.' },
  cannot_report_self: { en: 'You cannot report yourself.', es: 'No puedes denunciar tu propia cuenta.' },
  report_already_resolved: { en: 'This report has already been resolved.', es: 'Esta denuncia ya se ha resuelto.' },
  report_account_deleted: {
    en: 'This account has been deleted since: there is no one to ban. Dismiss the report to close it.',
    es: 'Esta cuenta se ha eliminado desde entonces: no hay nadie a quien suspender. Descarta la denuncia para cerrarla.',
  },
  report_already_banned: {
    en: 'This account is already banned: the ban stays. Dismiss the report to close it.',
    es: 'Esta cuenta ya está suspendida: la suspensión se mantiene. Descarta la denuncia para cerrarla.',
  },

  // Events.
  event_end_before_start: { en: 'The end must be after the start.', es: 'El final tiene que ser posterior al inicio.' },
  event_too_long: { en: 'An event lasts at most {hours} hours.', es: 'Un evento dura como máximo {hours} horas.' },
  event_end_in_past: { en: 'The end must be in the future.', es: 'El final tiene que estar en el futuro.' },
  event_start_too_far: { en: 'The start must be within a year from now.', es: 'El inicio tiene que ser dentro del próximo año.' },
  event_qr_required: { en: 'Scan the code at the event to check in.', es: 'Escanea el código en el evento para entrar.' },
  event_qr_expired: {
    en: 'This code has expired. Scan the code at the event again.',
    es: 'Este código ha caducado. Vuelve a escanear el código en el evento.',
  },
  event_not_open: {
    en: 'Check-in opens one hour before the event starts.',
    es: 'La entrada abre una hora antes de que empiece el evento.',
  },
  event_ended: { en: 'This event has ended.', es: 'Este evento ha terminado.' },
  event_start_fixed: {
    en: 'The event has started: its start can no longer change.',
    es: 'El evento ha empezado: su inicio ya no puede cambiar.',
  },
  event_check_in_open: {
    en: 'Check-in has opened: the start can be at most {minutes} minutes from now.',
    es: 'La entrada ya está abierta: el inicio puede ser como mucho dentro de {minutes} minutos.',
  },
  event_end_not_open: {
    en: 'Check-in has not opened yet: delete the event instead.',
    es: 'La entrada aún no ha abierto: elimina el evento en su lugar.',
  },
  event_already_started: {
    en: 'An event that has started cannot be deleted. End it instead.',
    es: 'Un evento que ya ha empezado no se puede eliminar. Termínalo en su lugar.',
  },

  // Payments and the plan.
  subscription_required: { en: 'This is part of the paid plan.', es: 'Esto es parte del plan de pago.' },
  no_subscription: { en: 'There is no subscription to cancel.', es: 'No hay ninguna suscripción que cancelar.' },
  test_plan_elsewhere: {
    en: 'This plan came from a test checkout: nothing is billed, and it ends on its own at the end of its period.',
    es: 'Este plan viene de un pago de prueba: no se cobra nada y termina solo al final de su periodo.',
  },
  billed_at_stripe: {
    en: 'This subscription is billed by Stripe: cancel it with “Manage subscription”.',
    es: 'Esta suscripción se cobra en Stripe: cancélala con «Gestionar la suscripción».',
  },
  unknown_plan: { en: 'This plan does not exist.', es: 'Este plan no existe.' },
  no_price: { en: 'This plan is not available right now.', es: 'Este plan no está disponible ahora.' },
  already_subscribed: { en: 'You already have a subscription.', es: 'Ya tienes una suscripción.' },
  payments_not_configured: { en: 'Payments are not configured on this server.', es: 'Los pagos no están configurados en este servidor.' },
  payments_unavailable: {
    en: 'Payments are unavailable right now. Please try again later.',
    es: 'Los pagos no están disponibles ahora. Inténtalo más tarde.',
  },
  checkout_canceled: {
    en: 'This checkout was canceled; start a new one from the subscribe page.',
    es: 'Este pago se canceló; empieza uno nuevo desde la página de suscripción.',
  },
  checkout_complete: { en: 'This checkout is already complete.', es: 'Este pago ya está completado.' },
} as const satisfies Record<string, Record<Language, string>>;

export type ServerMessageCode = keyof typeof SERVER_MESSAGES;

/** A message the server has not put into words yet: its code, and the values its copy names. */
export interface ServerText {
  readonly code: ServerMessageCode;
  readonly params?: MessageVars;
}

/** Something the server says: a coded message, or (not yet in the catalogue) plain English. */
export type ServerMessage = ServerText | string;

export const serverText = (code: ServerMessageCode, params?: MessageVars): ServerText => (params ? { code, params } : { code });

export const isServerText = (value: unknown): value is ServerText =>
  typeof value === 'object' && value !== null && typeof (value as ServerText).code === 'string' && (value as ServerText).code in SERVER_MESSAGES;

export function renderServerMessage(message: ServerMessage, language: Language): string {
  if (typeof message === 'string') return message;
  return format(SERVER_MESSAGES[message.code][language], message.params);
}

/** The server's language for a request: the first of ours its `Accept-Language` prefers, else English. */
export function languageOf(acceptLanguage: string | undefined): Language {
  return preferredLanguage(acceptLanguage) ?? 'en';
}

/**
 * The one of ours an `Accept-Language` prefers (the highest q; of equal ones, the first listed), or
 * null when it names neither: the answers' language and the one an account's e-mails are written in.
 */
export function preferredLanguage(acceptLanguage: string | undefined): Language | null {
  if (!acceptLanguage) return null;
  let best: { language: Language; q: number } | null = null;
  for (const part of acceptLanguage.split(',', 16)) {
    const [tag = '', ...options] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0] as Language;
    if (!LANGUAGES.includes(primary)) continue;
    const qOption = options.map((option) => option.trim()).find((option) => option.startsWith('q='));
    const q = qOption ? Number.parseFloat(qOption.slice(2)) : 1;
    if (Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { language: primary, q };
  }
  return best?.language ?? null;
}
