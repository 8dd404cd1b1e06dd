import { endedConversationsPurge } from './ended-conversations-purge';
import type { Job } from './job';
import { tokenSweep } from './token-sweep';
import { uploadSweep } from './upload-sweep';

/** Every background job the process runs (docs/operations.md lists them). */
export const jobs: readonly Job[] = [uploadSweep, tokenSweep, endedConversationsPurge];

export { type Job, type JobOutcome, type JobRunner, runJob, startJobs } from './job';
