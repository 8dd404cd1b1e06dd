-- The job test-plan-end reads the live local test plans every minute in every mode: these few rows,
-- not a scan of every account.
CREATE INDEX "users_test_plans" ON "users" USING btree ("id") WHERE "users"."has_subscription" and "users"."stripe_subscription_id" like 'sub_local_%';
