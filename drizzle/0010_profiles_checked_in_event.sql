ALTER TABLE "profiles" ADD COLUMN "checked_in_event_id" integer;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_checked_in_event_id_events_id_fk" FOREIGN KEY ("checked_in_event_id") REFERENCES "public"."events"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Who is checked in now, from the attendances kept so far.
UPDATE "profiles" SET "checked_in_event_id" = "attendances"."event_id"
FROM "attendances"
WHERE "attendances"."user_id" = "profiles"."user_id" AND "attendances"."left_at" IS NULL;--> statement-breakpoint
CREATE INDEX "profiles_event_deck" ON "profiles" USING btree ("checked_in_event_id","last_active_at" DESC NULLS LAST,"user_id" DESC NULLS LAST) WHERE "profiles"."is_completed" and "profiles"."checked_in_event_id" is not null;--> statement-breakpoint
-- From now on the database keeps the copy: whatever writes an attendance (a check-in, leaving, a
-- second check-in elsewhere, a deletion), the profile follows it in the same transaction.
CREATE FUNCTION "profiles_follow_attendance"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.left_at IS NULL THEN
    UPDATE profiles SET checked_in_event_id = NULL
    WHERE user_id = OLD.user_id AND checked_in_event_id = OLD.event_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.left_at IS NULL THEN
    UPDATE profiles SET checked_in_event_id = NEW.event_id
    WHERE user_id = NEW.user_id AND checked_in_event_id IS DISTINCT FROM NEW.event_id;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "attendances_profiles_follow" AFTER INSERT OR UPDATE OR DELETE ON "attendances"
FOR EACH ROW EXECUTE FUNCTION "profiles_follow_attendance"();
