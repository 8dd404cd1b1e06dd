-- Accounts from before e-mail verification existed start unverified (0007). Those signed in with
-- Google have proved the address through Google already: they count as verified from their creation.
-- Password accounts stay unverified until their owner follows a link: an address nobody proved must
-- not be linked to a Google login.
UPDATE "users" SET "email_verified_at" = "created_at" WHERE "google_sub" IS NOT NULL AND "email_verified_at" IS NULL;
