import { REACTIONS } from '../constants';
import { Id } from './common';
import { z } from './zod';

export const ReactionInput = z.object({
  response: z.enum(REACTIONS),
  other: Id,
  retry: z
    .boolean()
    .optional()
    .describe(
      'True when the client sends again a reaction whose answer it lost (the connection dropped): if the same reaction is stored, it answers as the first did, changes nothing and costs none of the reactions a minute; a like that made a match tells it again (`match:new`) to whichever of the two has not seen it yet.',
    ),
});
export type ReactionInput = z.infer<typeof ReactionInput>;

export const ReactionResult = z.object({
  match: z
    .boolean()
    .describe(
      'True for the like that completes the pair, and for any reaction sent while the two are matched: a like sent again (a retry whose first answer was lost) answers the same match and tells it again only to whoever has not seen it yet; a dislike or a skip changes nothing (a match ends by unmatching).',
    ),
  conversation_id: z.number().nullable().describe('The match’s conversation when `match` is true; otherwise null.'),
});
export type ReactionResult = z.infer<typeof ReactionResult>;
