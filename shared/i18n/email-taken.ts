/**
 * The one server message a client recognises by its words: a registration's 400 is a field map of
 * sentences with no code (the API's envelope), and an e-mail that already has an account is answered
 * on the register page with a way to the login. Apart from the others, as two plain strings, so that
 * the build writes them into the register page, which loads none of the server's other messages.
 */
export const EMAIL_TAKEN_EN = 'A user with that e-mail already exists.';
export const EMAIL_TAKEN_ES = 'Ya existe una cuenta con ese correo electrónico.';
