import { REPORT_DETAILS_MAX_LENGTH, REPORT_REASONS } from '../constants';
import { Id, page, PageQuery, wholeNumber } from './common';
import { visibleText } from './text';
import { z } from './zod';

/** Someone I blocked, so that I can undo it. `reported`: I have an open report of them. */
export const BlockedUser = z.object({ id: z.number(), name: z.string(), blocked_at: z.string(), reported: z.boolean() });
export type BlockedUser = z.infer<typeof BlockedUser>;

/**
 * A conversation of mine that ended (however it ended: nobody learns why) while its messages are still
 * kept, so that its other person can be reported: someone who blocked or unmatched me after what they
 * said or did is still within reach of a report. `reported`: I have an open report of them.
 */
export const EndedChat = z.object({ id: z.number(), user_id: z.number(), name: z.string(), ended_at: z.string(), reported: z.boolean() });
export type EndedChat = z.infer<typeof EndedChat>;

export const ReportReason = z.enum(REPORT_REASONS);
export type ReportReason = z.infer<typeof ReportReason>;

export const ReportInput = z.object({
  user_id: Id,
  reason: ReportReason,
  details: visibleText(REPORT_DETAILS_MAX_LENGTH).optional(),
  conversation_id: Id.optional(),
});
export type ReportInput = z.infer<typeof ReportInput>;

export const ReportCreated = z.object({ id: z.number() });

export const ReportStatus = z.enum(['open', 'resolved']);

export const ModerationQuery = PageQuery.extend({ status: ReportStatus.default('open') });

const Person = z.object({ id: z.number(), name: z.string() });

export const ModerationReport = z.object({
  id: z.number(),
  reason: ReportReason,
  details: z.string(),
  created_at: z.string(),
  /** Null once the account is deleted (the report stays). */
  reporter: Person.nullable(),
  /** `banned`: their account is banned now (a report can come after the ban, from a chat it ended). */
  reported: Person.extend({ id: z.number().nullable(), report_count: z.number(), banned: z.boolean() }),
  status: ReportStatus,
  /** What was decided, and when: null while the report is open. */
  resolution: z.enum(['dismiss', 'ban']).nullable(),
  resolved_at: z.string().nullable(),
});
export type ModerationReport = z.infer<typeof ModerationReport>;

export const ModerationReportPage = page(ModerationReport);

/** Which of the two wrote a message of a report's snapshot. */
export const SnapshotSender = z.enum(['reporter', 'reported']);
export type SnapshotSender = z.infer<typeof SnapshotSender>;

export const ReportSnapshot = z.object({
  /** What the reported person's profile showed when the report was made. */
  profile: z
    .object({
      name: z.string(),
      bio: z.string(),
      age: z.number().nullable(),
      gender: z.string().nullable(),
      /** Copies kept with the report while it is open (moderators' eyes only). */
      photos: z.array(z.string()),
    })
    .nullable(),
  /** The last messages of their conversation, oldest first. */
  messages: z.array(
    z.object({
      id: z.number(),
      sender: z.number(),
      content: z.string(),
      time: z.string(),
      /** Whose it was, also once that account is deleted (its id gone from the report); null only in an old snapshot whose two accounts are gone. */
      from: SnapshotSender.nullable(),
    }),
  ),
});

export const ModerationReportDetail = ModerationReport.extend({
  conversation_id: z.number().nullable(),
  snapshot: ReportSnapshot,
  /** Later reports of the same person by the same reporter, while this one was open. */
  additions: z.array(z.object({ reason: ReportReason, details: z.string(), at: z.string() })),
  note: z.string().nullable(),
  /** Resolved by the ban decided on another report of the same person: that report's id. */
  resolved_with: z.number().nullable(),
  /** The moderator who decided it: null while open, or once their account is deleted. */
  resolved_by: Person.nullable(),
});
export type ModerationReportDetail = z.infer<typeof ModerationReportDetail>;

export const ResolveInput = z.object({
  action: z.enum(['dismiss', 'ban']),
  note: z.string().trim().max(REPORT_DETAILS_MAX_LENGTH).optional(),
});
export type ResolveInput = z.infer<typeof ResolveInput>;

export const ReportPhotoParams = z.object({ id: Id, index: wholeNumber(0, 5) });

/** A report's copy of a photo: the image's bytes (the response is never serialized from this). */
export const ReportPhoto = z.file().describe('The WebP image.');
