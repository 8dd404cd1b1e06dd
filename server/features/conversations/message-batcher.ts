import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type Message, MessageInput } from '../../../shared/schemas/conversations';
import { type Db, PreparedStatement } from '../../db/client';
import { messages } from '../../db/schema';
import { NotFound, Throttled, toFieldErrors, ValidationError } from '../../errors';
import { type Limits, userSubject } from '../../lib/limits';
import { aliasedConversation, openConversationOf } from '../safety/visibility';
import { openConversationRow, sendLock } from './queries';
import { getParticipantIds, resentMessage, sendMessage } from './service';

type SendInput = Parameters<typeof sendMessage>[1];
type SendResult = Awaited<ReturnType<typeof sendMessage>>;

interface Pending {
  input: SendInput;
  /** When it was sent (performance.now()). */
  at: number;
  resolve: (result: SendResult) => void;
  reject: (error: unknown) => void;
}

/** The most sends one transaction carries. */
const MAX_BATCH = 500;

/**
 * How long a batch waits for company, from its oldest send, when sends come fast enough that the wait
 * is likely to bring some. A batch costs PostgreSQL about the same whether it carries one message or
 * four (bench/README.md): at 1,000 msg/s, 3 ms took the app and PostgreSQL from 565–661 to 360–407 µs
 * of CPU a message against 1 ms, for a p50 1 ms later and the same p99 (2 ms sat between the two).
 * Sparse sends (a party's few a second) are written at once, and so is a batch whose oldest send has
 * waited that long already (a busy instance, whose writes take longer).
 */
const LINGER_MS = 3;
/**
 * "Fast enough": the gap between sends, smoothed over the last ten or so, under LINGER_MS, so that a
 * linger expects at least one more send (over ~330 a second). Judged by the last gap alone (under
 * 10 ms, as it was), two sends of a party's 50 a second fell that close two times in five, and each
 * waited out the linger for a batch of one. A gap counts at most GAP_CEILING_MS, so that one quiet
 * spell does not keep a burst after it from batching.
 */
const GAP_SMOOTHING = 0.2;
const GAP_CEILING_MS = 10 * LINGER_MS;

/**
 * How many sends are answered per event-loop turn once their batch is committed. Each answer writes
 * three frames (the ack, `message:new` to both participants); a whole batch answered at once held the
 * loop for tens of milliseconds near saturation, and every socket's reads waited behind it.
 */
const SETTLE_SLICE = 32;

/**
 * `sendMessage` with group commit, for the socket's hot path. One commit per message tops out near
 * 1,000/s on this machine whatever the pool size (bench/README.md); here every send that arrives while
 * a commit is in flight joins the next one. At low load a batch is one message and nothing waits.
 *
 * The rules are the service's, item by item: not a participant (or hidden by the visibility rule) →
 * NotFound; bad content → the same ValidationError (MessageInput); idempotent by (sender, client_id), a
 * client_id reused in another conversation → CLIENT_ID_REUSED. If a batch fails as a whole, each of its
 * sends is retried alone through `sendMessage`, so one bad send fails only itself.
 *
 * The sender's `message:send` limit is counted here too, for the whole batch in one call (one Redis
 * round trip with several instances, where a call per send was a fifth of what a second instance
 * added to a message): a send past it is answered `Throttled` and never written. A message counts
 * once however often it is sent (`countedOnce`): a resend of one stored already takes none of it.
 */
export function createMessageBatcher(db: Db, log: FastifyBaseLogger, limits: Limits) {
  let queue: Pending[] = [];
  let flushing = false;
  let lastArrival = Number.NEGATIVE_INFINITY;
  /** The gap between sends, smoothed (GAP_SMOOTHING); from a quiet start. */
  let gap = GAP_CEILING_MS;

  /**
   * Committed sends waiting for their answer, oldest first: answered SETTLE_SLICE at a time, a slice
   * per event-loop turn, so that reads and the next batch's write go on in between. One queue for
   * every batch, so answers (and `message:new`) leave in the order the messages were stored.
   */
  let settling: Array<{ item: Pending; outcome: Outcome }> = [];
  let settled = 0;
  function settleSlice() {
    const end = Math.min(settling.length, settled + SETTLE_SLICE);
    for (; settled < end; settled += 1) {
      const { item, outcome } = settling[settled]!;
      if (outcome instanceof Error) item.reject(outcome);
      else item.resolve(outcome);
    }
    if (settled === settling.length) {
      settling = [];
      settled = 0;
      return;
    }
    // Under a load that never lets it drain, drop what was answered now and then.
    if (settled >= 4096) {
      settling = settling.slice(settled);
      settled = 0;
    }
    setImmediate(settleSlice);
  }
  function settle(batch: Pending[], outcomes: Outcome[]) {
    const idle = settling.length === 0;
    batch.forEach((item, index) => settling.push({ item, outcome: outcomes[index]! }));
    if (idle) settleSlice();
  }

  /**
   * Conversations with a send that the batch statement passed by (its row held by another write, most
   * often), each with the last of its sends sent alone, one after the other (`sendBehind`). Such a send
   * waits for that write; the batches go on meanwhile, and the conversation's later sends queue behind
   * it, so that its messages are stored in the order they were sent.
   */
  const behind = new Map<number, Promise<Outcome>>();
  function sendBehind(input: SendInput, after?: Promise<unknown>): Promise<Outcome> {
    const conversationId = input.conversationId;
    const before = [behind.get(conversationId), after].filter((wait) => wait !== undefined);
    const alone = () => sendMessage(db, input).catch(asError);
    const outcome = before.length > 0 ? Promise.all(before).then(alone) : alone();
    behind.set(conversationId, outcome);
    void outcome.then(() => {
      if (behind.get(conversationId) === outcome) behind.delete(conversationId);
    });
    return outcome;
  }

  async function flush() {
    flushing = true;
    while (queue.length > 0) {
      // Every batch waits, not only an idle batcher's first: sends that arrived while the previous
      // batch was written would otherwise go at once, and at 1,000 msg/s the batches stayed that small
      // (1.5 messages a commit with a 3 ms linger, bench:realtime's msgs/commit).
      const wait = gap < LINGER_MS ? queue[0]!.at + LINGER_MS - performance.now() : 0;
      if (wait > 0 && queue.length < MAX_BATCH) await new Promise((resolve) => setTimeout(resolve, wait));
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      const outcomes = await throttledWrite(batch.map((item) => item.input));
      // A send still waiting (`sendBehind`) is answered when it is stored; the rest of the batch now.
      const now = batch.filter((_, index) => !(outcomes[index] instanceof Promise));
      settle(now, outcomes.filter((outcome): outcome is Outcome => !(outcome instanceof Promise)));
      batch.forEach((item, index) => {
        const later = outcomes[index];
        if (later instanceof Promise) void later.then((outcome) => settle([item], [outcome]));
      });
    }
    flushing = false;
  }

  /**
   * The batch's outcomes: `Throttled` for the sends past their sender's limit, the rest written; a send
   * to a conversation with a send waiting (`behind`), or one the statement passed by, is sent alone
   * behind it, and its outcome is still to come.
   */
  async function throttledWrite(inputs: SendInput[]): Promise<Array<Outcome | Promise<Outcome>>> {
    const subjects = inputs.map((input) => userSubject(input.senderId));
    const refusals: Array<Error | null> = await limits
      .consumeEach('message:send', subjects)
      .catch((error: unknown) => inputs.map(() => asError(error)));
    const allowed = inputs.filter((_, index) => refusals[index] === null);
    const answer: BatchAnswer = { stored: null };
    let written: Array<Outcome | Promise<Outcome>>;
    try {
      written = await writeBatch(db, allowed, answer, behind, sendBehind);
    } catch (error) {
      log.warn({ err: error, size: allowed.length }, 'message batch failed; sending one by one');
      // The batch may have committed before it failed: a step after its statement threw (its answer
      // says which sends it stored), or the answer was lost on the way (any of them may be). Those
      // sends are found stored below, as if retried, yet nobody was told: each counts as new, once.
      const fresh = answer.stored ?? new Set(allowed.map((input) => sendKey(input.senderId, input.clientId ?? '')));
      // One after the other, so that a sender's messages are stored in the order they were sent.
      written = [];
      for (const input of allowed) {
        // Behind the sends of its conversation still waiting, as every send is.
        const outcome = await sendBehind(input);
        const fromBatch = !(outcome instanceof Error) && fresh.delete(sendKey(input.senderId, input.clientId ?? ''));
        written.push(fromBatch ? { ...outcome, created: true } : outcome);
      }
    }
    let next = 0;
    const outcomes = refusals.map((refused, index) => {
      if (refused) return refusedUnlessResent(db, limits, inputs[index]!, refused);
      const outcome = written[next++]!;
      return outcome instanceof Promise ? outcome.then((later) => countedOnce(limits, inputs[index]!, later)) : outcome;
    });
    // Given back before they are answered: the sender's next send, once this one's answer is in, finds it so.
    await Promise.all(outcomes.map((outcome, index) => !(outcome instanceof Promise) && !refusals[index] && countedOnce(limits, inputs[index]!, outcome)));
    return outcomes;
  }

  return {
    send(input: SendInput): Promise<SendResult> {
      // Batching keys on client_id (every socket send has one); anything else takes the plain path.
      if (!input.clientId) return sendCountedOnce(db, limits, input);
      return new Promise<SendResult>((resolve, reject) => {
        const now = performance.now();
        queue.push({ input, at: now, resolve, reject });
        gap += GAP_SMOOTHING * (Math.min(now - lastArrival, GAP_CEILING_MS) - gap);
        lastArrival = now;
        // Sends that arrive while a batch is written share the next commit; an idle batcher starts
        // after this event-loop turn, so the turn's sends go together.
        if (!flushing) {
          flushing = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}

type Outcome = SendResult | Error;

/**
 * A send answered with the message it stored before (a resend after a connection lost with its answer,
 * `created` false) gives back what it was counted of the sender's `message:send` limit: a phone sending
 * its queue again is not refused for its own retries. Within the resends' own limit (`message:resend`):
 * past it, a resend costs a send like any other.
 */
async function countedOnce(limits: Limits, input: SendInput, outcome: Outcome): Promise<Outcome> {
  if (outcome instanceof Error || outcome.created) return outcome;
  const subject = userSubject(input.senderId);
  const [refused] = await limits.consumeEach('message:resend', [subject]);
  if (!refused) await limits.unhit('message:send', subject);
  return outcome;
}

/**
 * A send past the sender's limit: answered with its message when that is stored already (a resend,
 * within the resends' own limit), else refused as it was.
 */
async function refusedUnlessResent(db: Db, limits: Limits, input: SendInput, refusal: Error): Promise<Outcome> {
  if (!(refusal instanceof Throttled)) return refusal;
  const [refused] = await limits.consumeEach('message:resend', [userSubject(input.senderId)]);
  if (refused) return refusal;
  return resentMessage(db, input).then((resent) => resent ?? refusal, asError);
}

/**
 * One send on its own (REST, or one without a client_id), counted against the sender's limit as the
 * batcher counts its sends: once a message, a resend of one stored answered with it.
 */
export async function sendCountedOnce(db: Db, limits: Limits, input: SendInput): Promise<SendResult> {
  const [refusal] = await limits.consumeEach('message:send', [userSubject(input.senderId)]);
  const outcome = refusal ? await refusedUnlessResent(db, limits, input, refusal) : await countedOnce(limits, input, await sendMessage(db, input));
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

/** What the batch statement stored, once it has answered: its sends' keys (`sendKey`). */
interface BatchAnswer {
  stored: Set<string> | null;
}

/** A send's (sender, client_id), as the batch matches them: the client_id as PostgreSQL prints a uuid. */
const sendKey = (senderId: number, clientId: string) => `${senderId}:${clientId.toLowerCase()}`;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * A row of the batch statement's answer: a send that passed the participant check (`idx` set), or a
 * message the batch inserted (`id` set); the two meet on (sender, client_id).
 */
interface BatchRow {
  idx: number | null;
  low: number | null;
  high: number | null;
  id: number | null;
  sender_id: number;
  client_id: string;
  content: string | null;
  time: string | null;
  previous_id: number | null;
}

/**
 * The whole batch in one statement, so one round trip and one commit: keep the sends whose sender is a
 * participant, insert them in order (a (sender, client_id) already stored is skipped), and answer with
 * the sends that passed and the rows inserted.
 * Each send's conversation is found by its key, behind a lateral subquery the planner cannot flatten
 * (`offset 0`; `openConversationRow`, so that one ended while the batch waited for its send locks is
 * not used): it takes a batch for 100 rows (its guess for any set-returning function), and joined
 * plainly it hashed the whole conversations table for every batch, tens of thousands of rows. The
 * sends and their rows are matched here rather than joined there: PostgreSQL joined them in a nested
 * loop, a batch's size squared, which made a big batch (a busy instance's) dearer per message.
 * Before any id is drawn, the batch holds the send lock (`sendLock`) of each of its conversations
 * (`conversations`, ascending, so that two batches never wait on each other in a cycle): `locked` is
 * one row, an aggregate over every lock, and each send joins it, so no row reaches the insert (where
 * its id is drawn) before all the locks are held, whatever plan PostgreSQL picks; a volatile CTE is
 * never folded into the query, so it runs once. In the statement the locks cost 5–20 µs of backend
 * CPU a batch of 1 to 16 conversations (2–5 %); as a statement of their own before it, in the same
 * round trip (`transactionInOneRoundTrip`), 45–65 (A/B on one backend, five rounds in turn).
 * Each message inserted is answered with the one stored just before it in its conversation (for
 * `message:new`), read by `previous_message_id` (drizzle/0021) as its row is answered: its own
 * snapshot holds what was committed while the batch waited for the locks (the statement's does not),
 * and the batch's own earlier messages.
 * Exported for bench/message-batch.ts (what a batch costs PostgreSQL).
 */
export const batchStatement = new PreparedStatement<{ items: string; conversations: string }>(sql`
  with input as (
    select * from jsonb_to_recordset(${sql.placeholder('items')}::jsonb)
      as t(idx int, conversation_id int, sender_id int, content text, client_id uuid)
  ),
  locked as (
    select count(${sendLock(sql`id`)}) as held from unnest(${sql.placeholder('conversations')}::int[]) as id
  ),
  allowed as (
    select i.*, c.user_low_id as low, c.user_high_id as high
    from input i
    cross join locked
    cross join ${openConversationRow(sql`i.conversation_id`, sql`locked.held`)} c
    where ${openConversationOf(sql`i.sender_id`, aliasedConversation('c'))}
  ),
  ins as (
    insert into ${messages} (conversation_id, sender_id, content, client_id)
    select conversation_id, sender_id, content, client_id from allowed order by idx
    on conflict (sender_id, client_id) do nothing
    returning id, conversation_id, sender_id, content, client_id, created_at
  )
  select idx, low, high, null::int as id, sender_id, client_id::text as client_id, null as content, null as time,
    null::int as previous_id
  from allowed
  union all
  select null, null, null, id, sender_id, client_id::text, content,
    to_char(created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), previous_message_id(conversation_id, id)
  from ins
`);

/** The batch statement's values: the sends, and their conversations ascending (an `int[]` literal). */
export function batchValues(items: Array<{ conversation_id: number }>) {
  const conversations = [...new Set(items.map((item) => item.conversation_id))].sort((x, y) => x - y);
  return { items: JSON.stringify(items), conversations: `{${conversations.join(',')}}` };
}

async function writeBatch(
  db: Db,
  inputs: SendInput[],
  answer: BatchAnswer,
  /** Conversations with a send waiting: their sends go behind it (`sendBehind`), not in the statement. */
  behind: ReadonlyMap<number, unknown>,
  sendBehind: (input: SendInput, after?: Promise<unknown>) => Promise<Outcome>,
): Promise<Array<Outcome | Promise<Outcome>>> {
  const outcomes: Array<Outcome | Promise<Outcome> | undefined> = new Array(inputs.length);
  const items: Array<{ idx: number; conversation_id: number; sender_id: number; content: string; client_id: string }> = [];
  /** Later sends of the same (sender, client_id) to the same conversation in this batch resolve to the first one's message. */
  const firstByKey = new Map<string, number>();
  const sameAs = new Map<number, number>();
  /**
   * Sends after the batch, each alone behind its conversation's sends still waiting (`sendBehind`): the
   * service answers a client_id reused elsewhere (CLIENT_ID_REUSED), and waits for a held row.
   */
  const unresolved: number[] = [];
  const invalid = new Map<number, ValidationError>();

  inputs.forEach((input, idx) => {
    const parsed = MessageInput.safeParse({ content: input.content, client_id: input.clientId ?? undefined });
    // send() only batches sends with a client_id, so the schema's optional is always there.
    const clientId = parsed.success ? (parsed.data.client_id ?? '') : (input.clientId ?? '');
    const key = sendKey(input.senderId, clientId);
    const first = firstByKey.get(key);
    if (first !== undefined) {
      if (inputs[first]!.conversationId === input.conversationId) sameAs.set(idx, first);
      else unresolved.push(idx);
      return;
    }
    firstByKey.set(key, idx);
    // Behind a send of its conversation that is still waiting: after it, never in this statement.
    if (behind.has(input.conversationId)) {
      unresolved.push(idx);
      return;
    }
    // Bad content still takes part in the participant check: a stranger gets NotFound, as from the service.
    if (!parsed.success) invalid.set(idx, new ValidationError(toFieldErrors(parsed.error.issues)));
    items.push({
      idx,
      conversation_id: input.conversationId,
      sender_id: input.senderId,
      content: parsed.success ? parsed.data.content : '',
      client_id: clientId,
    });
  });

  const valid = items.filter((item) => !invalid.has(item.idx));
  const participantsOnly = items.filter((item) => invalid.has(item.idx));
  const rows = valid.length > 0 ? await batchStatement.run<BatchRow>(db, batchValues(valid)) : [];
  const keyOf = (row: BatchRow) => sendKey(Number(row.sender_id), row.client_id);
  const inserted = new Map(rows.filter((row) => row.id !== null).map((row) => [keyOf(row), row]));
  answer.stored = new Set(inserted.keys());
  for (const row of rows) {
    if (row.idx === null) continue;
    const idx = Number(row.idx);
    const stored = inserted.get(keyOf(row));
    if (!stored) {
      // (sender, client_id) already stored: a retry, or a client_id reused elsewhere. Rare, and exactly
      // the service's business, so it answers (the stored message, or CLIENT_ID_REUSED).
      unresolved.push(idx);
      continue;
    }
    const message: Message = {
      id: Number(stored.id),
      sender: Number(stored.sender_id),
      content: stored.content ?? '',
      time: stored.time ?? '',
      client_id: stored.client_id,
    };
    const previousId = stored.previous_id === null ? null : Number(stored.previous_id);
    outcomes[idx] = { message, participantIds: [Number(row.low), Number(row.high)], created: true, previousId };
  }
  // Valid sends the statement did not answer for: not a participant, or the conversation's row was held
  // by another write (an ending, or an event deleted, which leaves it open) and passed by. The service
  // answers which once that write is over.
  for (const item of valid) if (outcomes[item.idx] === undefined && !unresolved.includes(item.idx)) unresolved.push(item.idx);
  // Bad content: NotFound for a stranger, the content errors for a participant (the service's order).
  for (const item of participantsOnly) {
    const participants = await getParticipantIds(db, item.conversation_id, item.sender_id);
    outcomes[item.idx] = participants ? invalid.get(item.idx)! : new NotFound();
  }
  // Last, once nothing here can fail (a failed batch sends each of its sends again), and not waited
  // for: a held row's send waits for the write that holds it, and the batch's other sends (committed)
  // are answered meanwhile. In the order they were sent, so that each conversation's go one after the
  // other; a client_id reused in another conversation goes after its first use.
  for (const idx of unresolved.sort((x, y) => x - y)) {
    const first = firstByKey.get(sendKey(inputs[idx]!.senderId, inputs[idx]!.clientId ?? ''));
    const earlier = first !== undefined && first !== idx ? outcomes[first] : undefined;
    outcomes[idx] = sendBehind(inputs[idx]!, earlier instanceof Promise ? earlier : undefined);
  }
  // Duplicates within the batch get the first send's message, as a retry would.
  for (const [idx, first] of sameAs) {
    const again = (outcome: Outcome | undefined) => (outcome instanceof Error || !outcome ? outcome : { ...outcome, created: false });
    const outcome = outcomes[first];
    outcomes[idx] = outcome instanceof Promise ? outcome.then((sent) => again(sent)!) : again(outcome);
  }
  return outcomes.map((outcome) => outcome ?? new Error('message batch left a send without an outcome'));
}

export type MessageBatcher = ReturnType<typeof createMessageBatcher>;
