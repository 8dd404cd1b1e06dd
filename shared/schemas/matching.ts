import { REACTIONS } from '../constants';
import { Id } from './common';
import { z } from './zod';

export const ReactionInput = z.object({
  response: z.enum(REACTIONS),
  other: Id,
});
export type ReactionInput = z.infer<typeof ReactionInput>;

export const ReactionResult = z.object({
  match: z.boolean(),
  conversation_id: z.number().nullable(),
});
export type ReactionResult = z.infer<typeof ReactionResult>;
