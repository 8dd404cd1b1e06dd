-- The message stored just before message `before` in its conversation, told with every `message:new`
-- so that a client can tell whether a push follows on from what it holds. Called by the statements that
-- store messages, under the conversation's send lock: VOLATILE, so that its query takes a snapshot of
-- its own, which holds the messages committed while the statement waited for that lock (the
-- statement's own snapshot, taken before the wait, does not). One probe of messages_conversation.
CREATE FUNCTION "previous_message_id"("conversation" integer, "before" integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN (SELECT id FROM messages WHERE conversation_id = conversation AND id < before ORDER BY id DESC NULLS LAST LIMIT 1);
END $$;
