import { MATCH_SEEN, MESSAGE_MAX_LENGTH } from '../constants';
import { withoutDirectionControls } from '../i18n/format';
import { Id, wholeNumber } from './common';
import { visibleText } from './text';
import { z } from './zod';

export const Message = z.object({
  id: z.number(),
  sender: z.number(),
  content: z.string(),
  time: z.string(),
  client_id: z.string().nullable(),
});
export type Message = z.infer<typeof Message>;

export const MessageInput = z.object({
  // Without embeddings, overrides and isolates: one before a link (shown as a link in the chat) turns
  // it around, its text showing a host it does not lead to ("https://bank.example/…" for a link to
  // another). Right-to-left text needs none of them: its letters set their own direction.
  content: visibleText(MESSAGE_MAX_LENGTH).overwrite(withoutDirectionControls),
  client_id: z.uuid().optional(),
});
export type MessageInput = z.infer<typeof MessageInput>;

export const MessagesQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: wholeNumber(1, 100).optional(),
  /** Catch-up after a reconnect: messages with an id above this one, oldest first. */
  after: wholeNumber(0, 2_147_483_647).optional(),
});
export type MessagesQuery = z.infer<typeof MessagesQuery>;

export const ConversationSummary = z.object({
  id: z.number(),
  name: z.string(),
  image: z.string().nullable(),
  other_user_id: z.number(),
  last_message: z.string().nullable(),
  last_activity: z.string(),
  unread_count: z.number().optional(),
  last_message_mine: z.boolean().optional().describe('In the started list: whether the newest message is the reader’s own (the list says "You:" before it).'),
  seen: z
    .enum(MATCH_SEEN)
    .nullable()
    .optional()
    .describe('How far the reader has seen the match on any device (its overlay, then the chats), null for not yet.'),
  entered: z
    .boolean()
    .optional()
    .describe('In the started list: whether the reader has read or written anything in it, on any device (one they have not is as new to them as a match).'),
});
export type ConversationSummary = z.infer<typeof ConversationSummary>;

export const ConversationDetail = z.object({
  id: z.number(),
  name: z.string(),
  image: z.string().nullable(),
  other_user_id: z.number(),
  partner_last_read_id: z
    .number()
    .describe('How far the other participant has read: the id of the last message they have read here, 0 for none.'),
});
export type ConversationDetail = z.infer<typeof ConversationDetail>;

export const ConversationParams = z.object({ id: Id });
