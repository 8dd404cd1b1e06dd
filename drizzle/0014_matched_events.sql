-- A match is an analytics event of its own, recorded with the match by the like that made it (its user
-- is the one whose like made it): the moderators' daily matches count these events, which stay when an
-- account goes (user_id set null), and no longer the conversations, which go with either account. Only
-- the server records it; the events a client may send are unchanged.
ALTER TABLE "analytics_events" DROP CONSTRAINT "analytics_events_name";--> statement-breakpoint
ALTER TABLE "analytics_events" ADD CONSTRAINT "analytics_events_name" CHECK ("analytics_events"."name" in ('app_opened', 'user_logged_in', 'profile_completed', 'match_opened', 'message_sent', 'signed_up', 'matched'));--> statement-breakpoint
-- One event for each match made so far, ended ones included, at the time it was made: the past days
-- count what they counted before. Whose like made an earlier match is not kept (a reaction's time
-- changes with every later reaction of the pair), so these are the pair's lower id's, as the
-- conversation names them first. The matches of accounts already deleted went with their conversations.
INSERT INTO "analytics_events" ("user_id", "name", "created_at")
SELECT "user_low_id", 'matched', "created_at" FROM "conversations" ORDER BY "created_at", "id";
