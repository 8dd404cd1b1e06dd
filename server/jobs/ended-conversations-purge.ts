import { ENDED_CONVERSATION_MESSAGES_KEPT_MS, purgeEndedConversations } from '../features/safety/service';
import type { Job } from './job';

/** The messages of a conversation ended (unmatch, block, ban) more than 30 days ago go. */
export const endedConversationsPurge: Job = {
  name: 'ended-conversations-purge',
  everyMs: 60 * 60 * 1000,
  firstAfterMs: 2 * 60 * 1000,
  scope: 'cluster',
  async run(app) {
    return { messages: await purgeEndedConversations(app.db, new Date(Date.now() - ENDED_CONVERSATION_MESSAGES_KEPT_MS)) };
  },
};
