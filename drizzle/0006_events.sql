CREATE TABLE "attendances" (
	"event_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"checked_in_at" timestamp with time zone DEFAULT now() NOT NULL,
	"left_at" timestamp with time zone,
	CONSTRAINT "attendances_event_id_user_id_pk" PRIMARY KEY("event_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" varchar(6) NOT NULL,
	"name" varchar(100) NOT NULL,
	"venue" varchar(200) DEFAULT '' NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"join_mode" text NOT NULL,
	"organizer_id" integer NOT NULL,
	"qr_secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "events_code_unique" UNIQUE("code"),
	CONSTRAINT "events_code" CHECK ("events"."code" ~ '^[A-HJKMNP-Z2-9]{6}$'),
	CONSTRAINT "events_name" CHECK (char_length("events"."name") between 1 and 100),
	CONSTRAINT "events_join_mode" CHECK ("events"."join_mode" in ('qr', 'code')),
	CONSTRAINT "events_times" CHECK ("events"."ends_at" > "events"."starts_at" and "events"."ends_at" <= "events"."starts_at" + interval '48 hours')
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "event_id" integer;--> statement-breakpoint
ALTER TABLE "attendances" ADD CONSTRAINT "attendances_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attendances" ADD CONSTRAINT "attendances_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_organizer_id_users_id_fk" FOREIGN KEY ("organizer_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "attendances_one_open" ON "attendances" USING btree ("user_id") WHERE "attendances"."left_at" is null;--> statement-breakpoint
CREATE INDEX "attendances_event_open" ON "attendances" USING btree ("event_id","user_id") WHERE "attendances"."left_at" is null;--> statement-breakpoint
CREATE INDEX "events_organizer" ON "events" USING btree ("organizer_id","id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversations_event" ON "conversations" USING btree ("event_id") WHERE "conversations"."event_id" is not null;