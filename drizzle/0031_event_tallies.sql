-- An organizer's figures for an event counted only the rows still there: a guest's deletion took their
-- check-in, the likes they gave and got there, and their matches (and the conversations started in
-- them) out of the night's history, and the purge of an ended conversation's messages took it out of
-- "conversations started". What those rows counted is now added here, anonymously, per event and
-- 15-minute slot, as they go; the stats add it to what the rows still there count. What went before
-- this migration is not known any more, and is not made up.
CREATE TABLE "event_tallies" (
	"event_id" integer NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"check_ins" integer DEFAULT 0 NOT NULL,
	"likes" integer DEFAULT 0 NOT NULL,
	"matches" integer DEFAULT 0 NOT NULL,
	"conversations_started" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "event_tallies_event_id_at_pk" PRIMARY KEY("event_id","at")
);
--> statement-breakpoint
ALTER TABLE "event_tallies" ADD CONSTRAINT "event_tallies_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;