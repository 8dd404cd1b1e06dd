-- A ban kept no trace of the sessions it ended (their rows were deleted), so a phone that was away
-- during the ban came back to "your session was closed" instead of "this account has been suspended".
-- A ban now marks its sessions instead: they never authenticate again, and go when they would have expired.
ALTER TABLE "auth_tokens" ADD COLUMN "ended_by_ban" boolean DEFAULT false NOT NULL;
