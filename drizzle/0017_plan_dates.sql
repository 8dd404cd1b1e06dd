-- The plan's dates, for the subscriber's page: when the free trial ends, when the plan renews, or when a
-- plan canceled at the end of its period ends. Written from the subscription at each of its events
-- (and by the local test checkout); null until then, and for plans bought before this migration until
-- their next event.
ALTER TABLE "users" ADD COLUMN "plan_trial_ends_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "plan_renews_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "plan_ends_at" timestamp with time zone;