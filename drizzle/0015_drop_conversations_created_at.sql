-- The moderators' daily matches are counted from the `matched` analytics events since 0014: nothing
-- reads conversations by their time any more, and every match paid for this index.
DROP INDEX "conversations_created_at";
