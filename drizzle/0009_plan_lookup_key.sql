ALTER TABLE "users" ADD COLUMN "plan_lookup_key" text;--> statement-breakpoint
-- Plans bought before this column: the price of the checkout that started them.
UPDATE "users" SET "plan_lookup_key" = (
  SELECT "lookup_key" FROM "checkout_sessions"
  WHERE "checkout_sessions"."user_id" = "users"."id" AND "checkout_sessions"."status" = 'complete'
  ORDER BY "checkout_sessions"."created_at" DESC LIMIT 1
) WHERE "stripe_subscription_id" IS NOT NULL;
