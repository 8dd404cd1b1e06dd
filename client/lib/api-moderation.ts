/**
 * The moderators' calls: the report queue, a report, its resolution and its photo copies. Beside
 * `api-app.ts`, not in it, so that only the moderators' chunk carries them: every attendee's app, and
 * an event's public page, load that module. The requests go out through `api.ts` all the same.
 */
import type { ModerationReport, ModerationReportDetail, ResolveInput } from '../../shared/schemas/safety';
import { http, type Page } from './api';
import { again } from './api-app';

export const moderationApi = {
  reports: (status: ModerationReport['status'], cursor?: string) =>
    again(() => http.get<Page<ModerationReport>>(`/api/moderation/reports/${http.query({ status, cursor })}`)),
  report: (id: number) => again(() => http.get<ModerationReportDetail>(`/api/moderation/reports/${id}/`)),
  resolve: (id: number, input: ResolveInput) => http.post<ModerationReportDetail>(`/api/moderation/reports/${id}/resolve/`, input),
  /** A report's photo copy: its URL needs the Authorization header, which an <img> cannot send. */
  photo: (url: string) => again(() => http.download(url)),
};
