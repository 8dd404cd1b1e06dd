import type { ModerationReportDetail } from '../../shared/schemas/safety';

/** A report as a moderator reads it, for client tests: an open one of Rob by Rita, with no snapshot kept. */
export const moderationReport = (overrides: Partial<ModerationReportDetail> = {}): ModerationReportDetail => ({
  id: 1,
  reason: 'spam',
  details: '',
  created_at: '2026-12-05T00:00:00.000Z',
  reporter: { id: 1, name: 'Rita' },
  reported: { id: 2, name: 'Rob', report_count: 1, banned: false },
  status: 'open',
  resolution: null,
  resolved_at: null,
  conversation_id: null,
  snapshot: { profile: null, messages: [] },
  additions: [],
  note: null,
  resolved_with: null,
  resolved_by: null,
  ...overrides,
});
