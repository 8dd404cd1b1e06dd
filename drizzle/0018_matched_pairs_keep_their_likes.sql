-- A dislike or a skip of someone matched replaced the like behind the match: the conversation stayed
-- open while the one who passed had the other back in their deck (among the skipped) and in their
-- likes list, and an undo of the pass deleted the reaction outright. A pass of a match now changes
-- nothing; this puts back the likes of the open conversations it had changed or deleted. Both users of
-- an open conversation liked each other to make it, and only an unmatch records a dislike (ending it).
-- A like put back keeps its time; one put back where an undo had deleted it is dated now.
INSERT INTO "reactions" ("from_user_id", "to_user_id", "kind")
SELECT "pair"."from_user_id", "pair"."to_user_id", 'like'
FROM "conversations" "c"
CROSS JOIN LATERAL (VALUES ("c"."user_low_id", "c"."user_high_id"), ("c"."user_high_id", "c"."user_low_id")) AS "pair" ("from_user_id", "to_user_id")
WHERE "c"."ended_at" IS NULL
ON CONFLICT ("from_user_id", "to_user_id") DO UPDATE SET "kind" = 'like' WHERE "reactions"."kind" <> 'like';
