DROP INDEX "profiles_deck";--> statement-breakpoint
CREATE INDEX "profiles_deck" ON "profiles" USING btree ("last_active_at" DESC NULLS LAST,"user_id" DESC NULLS LAST) WHERE "profiles"."is_completed";