-- A message's sender is a member of its conversation: one foreign key in place of two (conversation,
-- sender), each of which PostgreSQL checked and locked for every message inserted.
ALTER TABLE "messages" DROP CONSTRAINT "messages_conversation_id_conversations_id_fk";
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_sender_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_member_fk" FOREIGN KEY ("conversation_id","sender_id") REFERENCES "public"."conversation_members"("conversation_id","user_id") ON DELETE cascade ON UPDATE no action;