ALTER TABLE "analytics_events" ADD COLUMN "client_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "analytics_events_user_client_id" ON "analytics_events" USING btree ("user_id","client_id");