import { REACTIONS } from '../constants';
import { Id } from './common';
import { z } from './zod';

export const ReactionInput = z.object({
  response: z.enum(REACTIONS),
  other: Id,
});
export type ReactionInput = z.infer<typeof ReactionInput>;

export const ReactionResult = z.object({
  match: z
    .boolean()
    .describe(
      'True for the like that completes the pair, and for a like sent again while the two are matched (a retry whose first answer was lost): it answers the same match and tells nobody again.',
    ),
  conversation_id: z.number().nullable().describe('The match’s conversation when `match` is true; otherwise null.'),
});
export type ReactionResult = z.infer<typeof ReactionResult>;
