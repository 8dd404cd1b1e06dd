-- The hourly purge of ended conversations' messages read every conversation that ever ended, purged
-- long ago or not (the rows stay for good), and hash-joined them over a scan of all messages: on the
-- embedded database every request waited for it. It now marks what it purged and reads only the ended
-- conversations not purged yet, through this partial index, a batch at a time. The conversations
-- ended before this migration are left unmarked: the first run marks them, the already empty ones at
-- the cost of an index probe on messages each.
ALTER TABLE "conversations" ADD COLUMN "messages_purged_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "conversations_to_purge" ON "conversations" USING btree ("ended_at") WHERE "conversations"."ended_at" is not null and "conversations"."messages_purged_at" is null;