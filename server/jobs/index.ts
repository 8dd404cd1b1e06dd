import { bannedPlanStop } from './banned-plan-stop';
import { endedConversationsPurge } from './ended-conversations-purge';
import { expiredTokensPurge } from './expired-tokens-purge';
import type { Job } from './job';
import { orphanFileSweep } from './orphan-file-sweep';
import { outboxSweep } from './outbox-sweep';
import { posthogErasure } from './posthog-erasure';
import { spentLikesPurge } from './spent-likes-purge';
import { tableUpkeep } from './table-upkeep';
import { testPlanEnd } from './test-plan-end';
import { tokenSweep } from './token-sweep';
import { uploadSweep } from './upload-sweep';

/** Every background job the process runs (docs/operations.md lists them). */
export const jobs: readonly Job[] = [uploadSweep, tokenSweep, endedConversationsPurge, expiredTokensPurge, spentLikesPurge, tableUpkeep, orphanFileSweep, outboxSweep, testPlanEnd, bannedPlanStop, posthogErasure];

export { type Job, type JobOutcome, type JobRunner, runJob, startJobs } from './job';
