-- A conversation's newest message is read from messages_conversation when a list needs it, no longer
-- written with every message: each message batch updated its conversations' rows too (an UPDATE that
-- opened the table's five indexes and prepared its two checks again for every batch).
ALTER TABLE "conversations" DROP COLUMN "last_message_id";
--> statement-breakpoint
ALTER TABLE "conversations" DROP COLUMN "last_message_at";
