CREATE TABLE "likes_given" (
	"user_id" integer NOT NULL,
	"to_user_id" integer NOT NULL,
	"given_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "likes_given_user_id_given_at_to_user_id_pk" PRIMARY KEY("user_id","given_at","to_user_id")
);
--> statement-breakpoint
ALTER TABLE "likes_given" ADD CONSTRAINT "likes_given_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;