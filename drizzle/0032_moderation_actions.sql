CREATE TABLE "moderation_actions" (
	"id" serial PRIMARY KEY NOT NULL,
	"action" text NOT NULL,
	"moderator_id" integer,
	"user_id" integer,
	"report_id" integer,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "moderation_actions_action" CHECK ("moderation_actions"."action" in ('dismiss', 'ban', 'unban', 'grant_moderator', 'revoke_moderator'))
);
--> statement-breakpoint
ALTER TABLE "moderation_actions" ADD CONSTRAINT "moderation_actions_moderator_id_users_id_fk" FOREIGN KEY ("moderator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moderation_actions" ADD CONSTRAINT "moderation_actions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moderation_actions" ADD CONSTRAINT "moderation_actions_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "moderation_actions_user" ON "moderation_actions" USING btree ("user_id","at");--> statement-breakpoint
-- A blank moderator note was kept as an empty one: no note, as when none was written.
UPDATE "reports" SET "note" = NULL WHERE "note" = '';