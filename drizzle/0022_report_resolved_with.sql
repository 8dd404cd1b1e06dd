ALTER TABLE "reports" ADD COLUMN "resolved_with" integer;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_resolved_with_reports_id_fk" FOREIGN KEY ("resolved_with") REFERENCES "public"."reports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- The reports a ban resolved beside its own said so in an English note, the same for every moderator:
-- they now name that report, and each moderator's language says it.
UPDATE "reports" SET "resolved_with" = substring("note" from '^Resolved with report #(\d+)$')::integer, "note" = NULL
WHERE "resolution" = 'ban' AND "note" ~ '^Resolved with report #\d+$'
  AND EXISTS (SELECT FROM "reports" AS "banned" WHERE "banned"."id" = substring("reports"."note" from '^Resolved with report #(\d+)$')::integer);
