import { ERROR_CODES } from '../error-codes';
import { z } from './zod';

export const ErrorCode = z.enum(ERROR_CODES);

/** Every error answer but the 400 field map: `{detail}`, with a `code` (shared/error-codes.ts) where one applies. */
export const ErrorDetail = z.object({ detail: z.string(), code: ErrorCode.optional() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** The 400 body: every bad field at once, `non_field_errors` for the request as a whole. */
export const FieldErrorMap = z.record(z.string(), z.array(z.string()));
