import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { MessageInput } from '../../shared/schemas/conversations';
import type { Db } from '../db/client';
import { conversations, messages } from '../db/schema';
import { NotFound, toFieldErrors, ValidationError } from '../errors';
import { CLIENT_ID_REUSED, presentMessage, sendMessage } from '../features/conversations/service';

type SendInput = Parameters<typeof sendMessage>[1];
type SendResult = Awaited<ReturnType<typeof sendMessage>>;

interface Pending {
  input: SendInput;
  resolve: (result: SendResult) => void;
  reject: (error: unknown) => void;
}

/** The most sends one transaction carries. */
const MAX_BATCH = 500;

/**
 * `sendMessage` with group commit, for the socket's hot path. One commit per message tops out near
 * 1,000/s on this machine whatever the pool size (bench/README.md); here every send that arrives while
 * a commit is in flight joins the next one. At low load a batch is one message and nothing waits.
 *
 * The rules are the service's, item by item: not a participant → NotFound; bad content → the same
 * ValidationError (MessageInput); idempotent by (sender, client_id), a client_id reused in another
 * conversation → CLIENT_ID_REUSED; the conversation's last message moves forward only. If a batch fails
 * as a whole, each of its sends is retried alone through `sendMessage`, so one bad send fails only itself.
 * (The conversations service has no batch function yet; this belongs there once it has.)
 */
export function createMessageBatcher(db: Db, log: FastifyBaseLogger) {
  let queue: Pending[] = [];
  let flushing = false;

  async function flush() {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      try {
        const outcomes = await writeBatch(db, batch.map((item) => item.input));
        outcomes.forEach((outcome, index) => {
          const item = batch[index]!;
          if (outcome instanceof Error) item.reject(outcome);
          else item.resolve(outcome);
        });
      } catch (error) {
        log.warn({ err: error, size: batch.length }, 'message batch failed; sending one by one');
        await Promise.all(batch.map((item) => sendMessage(db, item.input).then(item.resolve, item.reject)));
      }
    }
    flushing = false;
  }

  return {
    send(input: SendInput): Promise<SendResult> {
      // Batching keys on client_id (every socket send has one); anything else takes the plain path.
      if (!input.clientId) return sendMessage(db, input);
      return new Promise<SendResult>((resolve, reject) => {
        queue.push({ input, resolve, reject });
        // Sends of the same event-loop turn share the first commit; later ones wait for the next.
        if (!flushing) {
          flushing = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}

type Outcome = SendResult | Error;

async function writeBatch(db: Db, inputs: SendInput[]): Promise<Outcome[]> {
  const outcomes: Array<Outcome | undefined> = new Array(inputs.length);

  // Participants first, as the service: a stranger learns nothing about the content rules.
  const conversationIds = [...new Set(inputs.map((input) => input.conversationId))];
  const pairs = new Map<number, [number, number]>();
  for (const row of await db
    .select({ id: conversations.id, low: conversations.userLowId, high: conversations.userHighId })
    .from(conversations)
    .where(inArray(conversations.id, conversationIds))) {
    pairs.set(row.id, [row.low, row.high]);
  }

  type Row = { index: number; conversationId: number; senderId: number; content: string; clientId: string };
  const rows: Row[] = [];
  /** Later sends of the same (sender, client_id) in this batch resolve to the first one's message. */
  const firstByKey = new Map<string, number>();
  const sameAs = new Map<number, number>();
  inputs.forEach((input, index) => {
    const participants = pairs.get(input.conversationId);
    if (!participants || !participants.includes(input.senderId)) {
      outcomes[index] = new NotFound();
      return;
    }
    const parsed = MessageInput.safeParse({ content: input.content, client_id: input.clientId ?? undefined });
    if (!parsed.success) {
      outcomes[index] = new ValidationError(toFieldErrors(parsed.error.issues));
      return;
    }
    // send() only batches sends with a client_id, so the schema's optional is always there.
    const clientId = parsed.data.client_id ?? '';
    const key = `${input.senderId}:${clientId}`;
    const first = firstByKey.get(key);
    if (first !== undefined) {
      sameAs.set(index, first);
      return;
    }
    firstByKey.set(key, index);
    rows.push({ index, conversationId: input.conversationId, senderId: input.senderId, content: parsed.data.content, clientId });
  });

  if (rows.length > 0) {
    await db.transaction(async (tx) => {
      const inserted = await tx
        .insert(messages)
        .values(rows.map(({ conversationId, senderId, content, clientId }) => ({ conversationId, senderId, content, clientId })))
        .onConflictDoNothing({ target: [messages.senderId, messages.clientId] })
        .returning();
      const byKey = new Map(inserted.map((row) => [`${row.senderId}:${row.clientId}`, row]));

      const retried: Row[] = [];
      for (const row of rows) {
        const stored = byKey.get(`${row.senderId}:${row.clientId}`);
        if (!stored) {
          retried.push(row);
          continue;
        }
        outcomes[row.index] = {
          message: presentMessage(stored),
          participantIds: pairs.get(row.conversationId)!,
          created: true,
        };
      }

      // Retries of sends stored earlier: the stored message, nothing new.
      if (retried.length > 0) {
        const existing = await tx
          .select()
          .from(messages)
          .where(or(...retried.map((row) => and(eq(messages.senderId, row.senderId), eq(messages.clientId, row.clientId)))));
        const existingByKey = new Map(existing.map((row) => [`${row.senderId}:${row.clientId}`, row]));
        for (const row of retried) {
          const stored = existingByKey.get(`${row.senderId}:${row.clientId}`);
          outcomes[row.index] =
            !stored || stored.conversationId !== row.conversationId
              ? ValidationError.field('client_id', CLIENT_ID_REUSED)
              : { message: presentMessage(stored), participantIds: pairs.get(row.conversationId)!, created: false };
        }
      }

      // Each conversation's newest message, moved forward only (concurrent REST sends may be newer).
      const newest = new Map<number, { id: number; at: Date }>();
      for (const row of inserted) {
        const current = newest.get(row.conversationId);
        if (!current || current.id < row.id) newest.set(row.conversationId, { id: row.id, at: row.createdAt });
      }
      if (newest.size > 0) {
        const values = sql.join(
          [...newest].map(([conversationId, { id, at }]) => sql`(${conversationId}::int, ${id}::int, ${at.toISOString()}::timestamptz)`),
          sql`, `,
        );
        await tx.execute(sql`
          update ${conversations} as c
          set last_message_id = v.id, last_message_at = v.at
          from (values ${values}) as v(conversation_id, id, at)
          where c.id = v.conversation_id and (c.last_message_id is null or c.last_message_id < v.id)
        `);
      }
    });
  }

  // Committed: duplicates within the batch get the first send's message, as a retry would.
  for (const [index, first] of sameAs) {
    const outcome = outcomes[first];
    outcomes[index] = outcome instanceof Error || !outcome ? outcome : { ...outcome, created: false };
  }
  return outcomes.map((outcome) => outcome ?? new Error('message batch left a send without an outcome'));
}

export type MessageBatcher = ReturnType<typeof createMessageBatcher>;
