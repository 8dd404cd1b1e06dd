/** Event codes as people type them: zod-free, so the client can use it without the schemas. */
import { EVENT_CODE_ALPHABET, EVENT_CODE_LENGTH } from './constants';

export const EVENT_CODE_PATTERN = new RegExp(`^[${EVENT_CODE_ALPHABET}]{${EVENT_CODE_LENGTH}}$`);

/** Case and surrounding spaces do not matter; codes are shown upper-case. */
export const normalizeEventCode = (value: string) => value.trim().toUpperCase();
export const isEventCode = (value: string) => EVENT_CODE_PATTERN.test(normalizeEventCode(value));
