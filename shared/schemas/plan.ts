import { Id } from './common';
import { DeckCard } from './users';
import { z } from './zod';

/**
 * What the paid plan buys: people who liked me, undo, unlimited likes. Its errors carry the
 * codes `subscription_required`, `daily_likes_exhausted` and `nothing_to_undo` (shared/error-codes.ts).
 */

/**
 * `GET /api/users/me/likes/`: people who liked me and whom I have not answered, newest first. Only a
 * subscriber gets the cards; everyone gets the count (`results: []` and `next: null` without the plan).
 */
export const LikesYouPage = z.object({
  count: z.number().int(),
  results: z.array(DeckCard),
  next: z.string().nullable(),
});
export type LikesYouPage = z.infer<typeof LikesYouPage>;

/** `GET /api/matching/allowance/`: the likes left in the rolling window; a subscriber's are unlimited. */
export const LikeAllowance = z.object({
  unlimited: z.boolean(),
  /** Likes per window without the plan; null when unlimited. */
  limit: z.number().int().nullable(),
  remaining: z.number().int().nullable(),
  /** When a like comes back, once none is left; null otherwise. */
  resets_at: z.string().nullable(),
});
export type LikeAllowance = z.infer<typeof LikeAllowance>;

/** 429 of a like past the free plan's window (the error envelope, with its code and when likes come back). */
export const DailyLikesExhaustedBody = z.object({
  detail: z.string(),
  code: z.literal('daily_likes_exhausted'),
  resets_at: z.string(),
});
export type DailyLikesExhaustedBody = z.infer<typeof DailyLikesExhaustedBody>;

/**
 * `POST /api/matching/undo/`: what was taken back, and the card, to put back on top of the deck. The
 * user's other phones and tabs hear the same as `deck:undone` (docs/socket-events.md).
 */
export const UndoResult = z.object({
  undone: z.enum(['dislike', 'skip']).describe('The pass taken back: the person is in the deck again, as someone not answered yet.'),
  card: DeckCard.describe('Their deck card, to put back on top.'),
});
export type UndoResult = z.infer<typeof UndoResult>;

/**
 * `POST /api/matching/undo/`'s body, optional: the person the client means to bring back. Undo then
 * takes back my last reaction only if it is about them, so that a pass made on another phone since is
 * not what comes back; without it (older clients), whatever the last reaction is.
 */
export const UndoInput = z.object({
  user_id: Id.optional().describe(
    'The person the client means to bring back (the card it offers): 409 `nothing_to_undo` unless the last reaction is a pass on them.',
  ),
});
export type UndoInput = z.infer<typeof UndoInput>;

/** `GET /api/matching/undo/`: the card an undo would bring back now, and when that chance ends; all null when there is nothing to undo. */
export const Undoable = z.object({
  card: DeckCard.nullable().describe('The card the next undo would bring back; null when there is nothing to undo.'),
  expires_at: z.string().nullable().describe('When the chance to undo it ends, by the server’s clock.'),
  expires_in_ms: z
    .number()
    .int()
    .nullable()
    .describe('How long the chance to undo it lasts from this answer: a phone times it from here, whatever its own clock says.'),
});
export type Undoable = z.infer<typeof Undoable>;

/** `GET /api/payments/subscription/`: the plan as the subscribe page shows it. */
export const SubscriptionState = z.object({
  active: z.boolean(),
  /** The billing period of the checkout that started it, when it is one of the configured plans. */
  period: z.enum(['monthly', 'yearly']).nullable(),
  /** Whether "Manage subscription" leads anywhere (Stripe's customer portal, or the local test one). */
  manageable: z.boolean(),
  /**
   * The days of free trial a checkout started now would come with: the trial comes with an account's
   * first subscription only, so 0 once the account has had one.
   */
  trial_days: z.number().int().min(0),
  /** While the plan is in its free trial: when the trial ends (and the first payment is taken). */
  trial_ends_at: z.string().nullable(),
  /** When the plan renews next, as far as it is known; null when it ends instead, or while a payment has failed (`payment_failed`). */
  renews_at: z.string().nullable(),
  /** A plan canceled at the end of its period: when it ends. */
  ends_at: z.string().nullable(),
  /**
   * A payment of the plan's failed: Stripe is trying again while the plan goes on (`past_due`), or
   * has stopped and the plan has ended until its invoice is paid (`unpaid`). The card is updated, and
   * the invoice paid, in "Manage subscription".
   */
  payment_failed: z.boolean(),
  /**
   * The last checkout's first payment was not made: it awaits the bank's confirmation (3-D Secure), or
   * was declined, or expired unconfirmed. There is no plan: the checkout's success page says so, and a
   * new checkout may be started.
   */
  payment_incomplete: z.boolean(),
});
export type SubscriptionState = z.infer<typeof SubscriptionState>;

export const PortalResponse = z.object({ url: z.string() });
export type PortalResponse = z.infer<typeof PortalResponse>;
