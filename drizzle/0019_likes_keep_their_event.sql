-- An event's organizer sees the likes given there. They were counted as every like between two of its
-- attendees given after the giver first checked in, so a like given at the next party, or after a
-- leave, counted at every event the two had both been to. A like now keeps the event both were
-- checked in to when it was given. Likes given before this change get the event whose attendances of
-- the two were both open at the like's time (the latest such check-in), within its after-party.
ALTER TABLE "reactions" ADD COLUMN "event_id" integer;--> statement-breakpoint
UPDATE "reactions" "r" SET "event_id" = "there"."event_id"
FROM (
  SELECT DISTINCT ON ("x"."from_user_id", "x"."to_user_id") "x"."from_user_id", "x"."to_user_id", "giver"."event_id"
  FROM "reactions" "x"
  JOIN "attendances" "giver" ON "giver"."user_id" = "x"."from_user_id" AND "giver"."checked_in_at" <= "x"."updated_at"
    AND ("giver"."left_at" IS NULL OR "giver"."left_at" >= "x"."updated_at")
  JOIN "attendances" "taker" ON "taker"."event_id" = "giver"."event_id" AND "taker"."user_id" = "x"."to_user_id"
    AND "taker"."checked_in_at" <= "x"."updated_at" AND ("taker"."left_at" IS NULL OR "taker"."left_at" >= "x"."updated_at")
  JOIN "events" "e" ON "e"."id" = "giver"."event_id" AND "x"."updated_at" <= "e"."ends_at" + interval '24 hours'
  WHERE "x"."kind" = 'like'
  ORDER BY "x"."from_user_id", "x"."to_user_id", "giver"."checked_in_at" DESC
) "there"
WHERE "r"."from_user_id" = "there"."from_user_id" AND "r"."to_user_id" = "there"."to_user_id";
