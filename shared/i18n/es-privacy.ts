import type { enPrivacy } from './en-privacy';

export const esPrivacy: Record<keyof typeof enPrivacy, string> = {
  'privacy.title': 'Política de privacidad',
  'privacy.updated': 'Última actualización: noviembre de 2026',
  'privacy.toc': 'Contenido',
  'privacy.intro':
    'Esta política explica qué datos recoge Eventmatch cuando usas la app, para qué, y qué puedes hacer al respecto.',
  'privacy.collection.title': 'Información que recogemos',
  'privacy.collection.text':
    'Los datos de tu cuenta (nombre y correo), el perfil que escribes (fotos, bio, fecha de nacimiento, género y a quién quieres conocer), tus reacciones a otros perfiles y los mensajes que envías a tus matches. Antes de guardar las fotos les quitamos los datos de ubicación y de cámara.',
  'privacy.sharing.title': 'Cómo compartimos los datos',
  'privacy.sharing.text':
    'Quienes usan la app ven tu perfil público: nombre, edad, fotos y bio, nunca tu correo ni tu fecha de nacimiento. Los mensajes solo los veis tú y tu match. Usamos proveedores de pago y de inicio de sesión solo para eso, y no vendemos tus datos.',
  'privacy.security.title': 'Seguridad',
  'privacy.security.text':
    'Las contraseñas se guardan como hashes robustos, las sesiones usan tokens revocables y todo el tráfico va cifrado. En tu teléfono, la app guarda tus últimos chats para que se abran sin conexión; al cerrar sesión se borran.',
  'privacy.rights.title': 'Tus derechos',
  'privacy.rights.text':
    'Puedes ver y editar tu perfil cuando quieras. En Ajustes también puedes descargar una copia de tus datos o eliminar tu cuenta, sin tener que pedírnoslo.',
  'privacy.changes.title': 'Cambios en esta política',
  'privacy.changes.text': 'Si esta política cambia, actualizaremos la fecha de arriba y te avisaremos en la app.',
  'privacy.contact.title': 'Contacto',
  'privacy.contact.text': '¿Preguntas sobre tu privacidad? Escríbenos a {email}.',
  'privacy.backHome': 'Volver al inicio',
};
