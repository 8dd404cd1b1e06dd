-- An end in the check-in hour brings the start back to the end: when the door opened is kept apart,
-- for the timeline to start there and not an hour before that end.
ALTER TABLE "events" ADD COLUMN "check_in_opened_at" timestamp with time zone;
