CREATE TABLE "posthog_erasures" (
	"id" serial PRIMARY KEY NOT NULL,
	"distinct_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "posthog_erasures_next_attempt_at" ON "posthog_erasures" USING btree ("next_attempt_at");