import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ReactionInput, ReactionResult } from '../../../shared/schemas/matching';
import { LikeAllowance, Undoable, UndoInput, UndoResult } from '../../../shared/schemas/plan';
import { currentUser } from '../../plugins/auth';
import { freeDailyLikes, likeAllowance } from '../plan/service';
import { requestSubject } from '../../lib/limits';
import { react, repeatedReaction, undoableNow, undoLast } from './service';
import { untoldMatch } from '../conversations/service';

/** What `POST /api/matching/undo/` does, as the API's documentation says it (`/api/docs`). */
const UNDO_DESCRIPTION = [
  'Takes back the account’s last reaction when it is a dislike or a skip of the last 5 minutes about someone the deck would show now:',
  'the person is in the deck again, and the answer is their card, to put back on top. One at a time; the pass before may follow while',
  'it is within its window. 403 `subscription_required` without the plan; 409 `nothing_to_undo` after a like, past the window, about',
  'someone hidden or out of the deck since, about someone else than `user_id`, or for a profile not complete (no deck). The user’s',
  'other phones and tabs hear `deck:undone` with the same answer (docs/socket-events.md).',
].join(' ');

const matchingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.authenticate);
  const dailyLikes = freeDailyLikes(app.config.limitMultiplier);

  /** `match:new` to each; mine say it was my like that made it (the latest decision on every phone of mine, which leaves nothing to undo). */
  const tellMatch = (matched: Awaited<ReturnType<typeof untoldMatch>>, conversationId: number, me: number) => {
    for (const { userId, other } of matched) {
      const byYou = userId === me ? { by_you: true as const } : {};
      app.publish([userId], 'match:new', { conversation_id: conversationId, user: other, ...byYou });
    }
  };

  app.post(
    '/api/matching/',
    { schema: { body: ReactionInput, response: { 200: ReactionResult } }, onRequest: app.limits.hook('reaction') },
    async (request) => {
      const me = currentUser(request).id;
      if (request.body.retry) {
        const repeat = await repeatedReaction(app.db, me, request.body);
        if (repeat) {
          // Counted already, the first time: an honest retry costs none of the reactions a minute,
          // within the retries' own limit; past it, this one keeps the reaction it was counted.
          const [refused] = await app.limits.consumeEach('reaction:retry', [requestSubject(request)]);
          if (!refused) await app.limits.unhit('reaction', requestSubject(request));
          if (repeat.match && request.body.response === 'like') tellMatch(await untoldMatch(app.db, repeat.conversationId!), repeat.conversationId!, me);
          return { match: repeat.match, conversation_id: repeat.conversationId };
        }
      }
      const outcome = await react(app.db, me, request.body, { dailyLikes });
      // Committed: now both users hear about the match. Matched already (a like sent again with no
      // `retry`): told again to whoever has not seen it, as the retry's is.
      const matched = outcome.match && !outcome.matched.length && request.body.response === 'like' ? await untoldMatch(app.db, outcome.conversationId!) : outcome.matched;
      tellMatch(matched, outcome.conversationId!, me);
      // Answered with no match: the card leaves the decks of my other phones and tabs too, before
      // one of them answers it again over this answer (a match does that through match:new).
      if (!outcome.match) {
        app.publish([me], 'deck:answered', { user_id: request.body.other, response: request.body.response });
      }
      return { match: outcome.match, conversation_id: outcome.conversationId };
    },
  );

  // A subscriber's perk; it spends from the same per-minute budget as reactions. The body, optional
  // (older clients send none, or `{}`), names the person the client means to bring back.
  app.post(
    '/api/matching/undo/',
    {
      schema: {
        summary: 'Undo the last pass (paid plan)',
        description: UNDO_DESCRIPTION,
        body: UndoInput.nullish(),
        response: { 200: UndoResult },
      },
      onRequest: app.limits.hook('reaction'),
    },
    async (request) => {
      const me = currentUser(request).id;
      const result = await undoLast(app.db, me, request.body?.user_id);
      // Committed: the person comes back on my other phones and tabs too, as deck:answered took
      // them away (this one puts the card back from this answer, and may hear it first).
      app.publish([me], 'deck:undone', result);
      return result;
    },
  );

  // What that undo would bring back now: asked by a client that opens the deck, has just undone one, or
  // is back online (on the free plan, the person its offer of the plan names).
  app.get(
    '/api/matching/undo/',
    {
      schema: {
        summary: 'What undo would bring back now',
        description:
          'The card the next undo would bring back and how long that chance lasts, or all null. On either plan: the undo itself is the paid plan’s.',
        response: { 200: Undoable },
      },
    },
    async (request) => undoableNow(app.db, currentUser(request).id),
  );

  app.get('/api/matching/allowance/', { schema: { response: { 200: LikeAllowance } } }, async (request) =>
    likeAllowance(app.db, currentUser(request).id, dailyLikes),
  );
};

export default matchingRoutes;
