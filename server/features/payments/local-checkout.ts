import { and, eq } from 'drizzle-orm';
import { serverText } from '../../../shared/i18n/server-messages';
import type { StripeEvent } from '../../../shared/schemas/payments';
import type { Db, DbOrTx } from '../../db/client';
import { checkoutSessions, users } from '../../db/schema';
import { Conflict } from '../../errors';
import { cancelUrl, successUrl } from './checkout';
import { type EventResult, handleStripeEvent, LOCAL_EVENTS } from './webhook';

export interface LocalCheckout {
  id: string;
  lookupKey: string;
  status: 'open' | 'complete' | 'canceled';
  userId: number;
  email: string;
}

/** A local test checkout of this user's; another account's is as unknown as one that never existed. */
export async function findLocalCheckout(db: DbOrTx, id: string, userId: number): Promise<LocalCheckout | null> {
  const [row] = await db
    .select({
      id: checkoutSessions.id,
      lookupKey: checkoutSessions.lookupKey,
      status: checkoutSessions.status,
      userId: checkoutSessions.userId,
      email: users.email,
    })
    .from(checkoutSessions)
    .innerJoin(users, eq(users.id, checkoutSessions.userId))
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.userId, userId), eq(checkoutSessions.provider, 'local')));
  return row ?? null;
}

export const CHECKOUT_CANCELED = serverText('checkout_canceled');
export const CHECKOUT_DONE = serverText('checkout_complete');

/** Where the browser goes after a local test checkout, and what its event did (none for a cancel). */
export interface FinishedCheckout {
  url: string;
  event?: EventResult;
}

/**
 * "Pays" a local test checkout of the signed-in user's: the event Stripe would send for it goes
 * through the webhook's own handler. Its id is derived from the session's, so a second click changes
 * nothing. Answers the success address and what the event did, or null for a session that is not theirs.
 */
export async function completeLocalCheckout(
  db: Db,
  publicUrl: string,
  id: string,
  userId: number,
  lookupKeys: { yearly: string },
): Promise<FinishedCheckout | null> {
  const checkout = await findLocalCheckout(db, id, userId);
  if (!checkout) return null;
  if (checkout.status === 'canceled') throw new Conflict(CHECKOUT_CANCELED, 'checkout_canceled');
  const suffix = id.slice('cs_local_'.length);
  const completed: StripeEvent = {
    id: `evt_local_${suffix}`,
    type: 'checkout.session.completed',
    data: {
      object: {
        id,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'complete',
        client_reference_id: String(checkout.userId),
        // A customer of its own, as Stripe would make: the local portal's cancellation names it.
        customer: `cus_local_${suffix}`,
        subscription: `sub_local_${suffix}`,
      },
    },
  };
  const event = await handleStripeEvent(db, completed, { ...LOCAL_EVENTS, yearlyLookupKey: lookupKeys.yearly });
  return { url: successUrl(publicUrl, id), event };
}

/** Answers the cancel address, or null for a session that is not theirs. A completed checkout stays complete. */
export async function cancelLocalCheckout(db: Db, publicUrl: string, id: string, userId: number): Promise<FinishedCheckout | null> {
  const checkout = await findLocalCheckout(db, id, userId);
  if (!checkout) return null;
  if (checkout.status === 'complete') throw new Conflict(CHECKOUT_DONE, 'checkout_complete');
  await db
    .update(checkoutSessions)
    .set({ status: 'canceled' })
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'open')));
  return { url: cancelUrl(publicUrl) };
}
