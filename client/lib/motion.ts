/** The phone asks for less motion: what would slide or scroll smoothly moves in one step instead. */
export const lessMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;
