-- The planner's count of people who received reactions, fixed as a share of the reactions (about one
-- in 33: a party's two minutes, or 100,000 users with 31 reactions each) instead of estimated by each
-- ANALYZE from its sample. In a party's first minute everybody reacts to the same few people at the top
-- of the deck, and a sample then put it at a few dozen: the event deck's generic plan (made for every
-- viewer at once) expected 1,000 likes per viewer and read the whole table for each deck, 100-400 ms a
-- call for ten seconds at a time, until the next ANALYZE (bench/README.md, the party). Takes effect at
-- the next ANALYZE of reactions.
ALTER TABLE "reactions" ALTER COLUMN "to_user_id" SET (n_distinct = -0.03);
