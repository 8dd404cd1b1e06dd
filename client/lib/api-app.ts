/**
 * The signed-in app's calls (and the public event page's), beside `api.ts` so that the landing page
 * does not carry them: `api` here is the core's calls and these. Every request goes out through `api.ts`.
 */
import type { Language, Reaction } from '../../shared/constants';
import type { ConversationDetail, ConversationSummary, Message } from '../../shared/schemas/conversations';
import type { ReactionResult } from '../../shared/schemas/matching';
import type { DeckCard, OwnProfile, ProfileInput, PublicProfile } from '../../shared/schemas/users';
import type {
  CheckedIn,
  CheckInInput,
  CurrentEvent,
  EventInputBody,
  EventQr,
  EventStats,
  EventUpdate,
  JoinPass,
  OrganizerEvent,
  PublicEventPage,
} from '../../shared/schemas/events';
import type { TestCheckout } from '../../shared/schemas/payments';
import type { LikeAllowance, LikesYouPage, PortalResponse, SubscriptionState, Undoable, UndoResult } from '../../shared/schemas/plan';
import type { BlockedUser, EndedChat, ModerationReport, ModerationReportDetail, ReportInput, ResolveInput } from '../../shared/schemas/safety';
import { api as core, http, isRecord, NetworkError, type Page, toError } from './api';

/** Upload progress needs XMLHttpRequest: fetch cannot report bytes sent. */
function uploadFile(file: File, onProgress?: (fraction: number) => void): Promise<{ url: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/uploads/');
    for (const [name, value] of Object.entries(http.headers(false))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    xhr.onerror = () => reject(new NetworkError(0, 'Network error'));
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300 && isRecord(body) && typeof body.url === 'string') {
        resolve({ url: body.url });
        return;
      }
      reject(toError(xhr.status, body, xhr.getResponseHeader('Retry-After')));
    };
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}

export const api = {
  ...core,
  myProfile: () => http.get<OwnProfile>('/api/users/me/profile/'),
  saveProfile: (profile: ProfileInput) => http.put<OwnProfile>('/api/users/me/profile/', profile),
  saveLanguage: (language: Language) => http.put<null>('/api/users/me/language/', { language }),
  profile: (id: number) => http.get<PublicProfile>(`/api/users/${id}/profile/`),
  upload: uploadFile,
  deck: (cursor?: string) => http.get<Page<DeckCard>>(`/api/users/matching-profiles/${http.query({ cursor })}`),
  /** `retry`: sent again after no answer; the server answers a stored one as it did the first time. */
  react: (other: number, response: Reaction, retry?: true) => http.post<ReactionResult>('/api/matching/', { response, other, retry }),
  /** Takes back the pass on `userId`, only if it is still the account's last reaction (409 `nothing_to_undo` otherwise). */
  undo: (userId: number) => http.post<UndoResult>('/api/matching/undo/', { user_id: userId }),
  undoable: () => http.get<Undoable>('/api/matching/undo/'),
  likeAllowance: () => http.get<LikeAllowance>('/api/matching/allowance/'),
  likesYou: (cursor?: string) => http.get<LikesYouPage>(`/api/users/me/likes/${http.query({ cursor })}`),
  emptyConversations: (cursor?: string) => http.get<Page<ConversationSummary>>(`/api/conversations/empty/${http.query({ cursor })}`),
  startedConversations: (cursor?: string) => http.get<Page<ConversationSummary>>(`/api/conversations/started/${http.query({ cursor })}`),
  conversation: (id: number) => http.get<ConversationDetail>(`/api/conversations/${id}/`),
  messages: (id: number, params: { cursor?: string; after?: number } = {}) =>
    http.get<Page<Message>>(`/api/conversations/${id}/messages/${http.query(params)}`),
  sendMessage: (id: number, content: string, clientId: string) =>
    http.post<Message>(`/api/conversations/${id}/messages/`, { content, client_id: clientId }),
  /** The socket's `message:read`, for a tab with none. */
  markRead: (id: number, lastReadId: number) => http.post<null>(`/api/conversations/${id}/read/`, { last_read_id: lastReadId }),
  /** With the server's time (`now`), for the clock of a visitor not signed in. */
  event: (code: string) => http.get<PublicEventPage>(`/api/events/${encodeURIComponent(code)}/`),
  eventPass: (code: string, token: string) => http.post<JoinPass>(`/api/events/${encodeURIComponent(code)}/pass/`, { token }),
  checkIn: (code: string, proof: CheckInInput = {}) => http.post<CheckedIn>(`/api/events/${encodeURIComponent(code)}/check-in/`, proof),
  currentEvent: () => http.get<CurrentEvent>('/api/events/current/'),
  leaveEvent: () => http.post<null>('/api/events/leave/'),
  myEvents: (cursor?: string) => http.get<Page<OrganizerEvent>>(`/api/events/mine/${http.query({ cursor })}`),
  createEvent: (input: EventInputBody) => http.post<OrganizerEvent>('/api/events/', input),
  eventQr: (id: number) => http.get<EventQr>(`/api/events/${id}/qr/`),
  eventStats: (id: number) => http.get<EventStats>(`/api/events/${id}/stats/`),
  updateEvent: (id: number, change: EventUpdate) => http.request<OrganizerEvent>('PATCH', `/api/events/${id}/`, change),
  endEvent: (id: number) => http.post<OrganizerEvent>(`/api/events/${id}/end/`),
  deleteEvent: (id: number) => http.del<null>(`/api/events/${id}/`),
  /** Safety: each ends the conversation for both; the socket says `match:removed`. */
  block: (userId: number) => http.post<null>(`/api/users/${userId}/block/`),
  unblock: (userId: number) => http.del<null>(`/api/users/${userId}/block/`),
  blocks: (cursor?: string) => http.get<Page<BlockedUser>>(`/api/users/me/blocks/${http.query({ cursor })}`),
  /** Chats that ended lately, however they ended: their people can still be reported. */
  endedChats: (cursor?: string) => http.get<Page<EndedChat>>(`/api/conversations/ended/${http.query({ cursor })}`),
  unmatch: (conversationId: number) => http.del<null>(`/api/conversations/${conversationId}/`),
  report: (input: ReportInput) => http.post<{ id: number }>('/api/reports/', input),
  moderationReports: (status: ModerationReport['status'], cursor?: string) =>
    http.get<Page<ModerationReport>>(`/api/moderation/reports/${http.query({ status, cursor })}`),
  moderationReport: (id: number) => http.get<ModerationReportDetail>(`/api/moderation/reports/${id}/`),
  resolveReport: (id: number, input: ResolveInput) => http.post<ModerationReportDetail>(`/api/moderation/reports/${id}/resolve/`, input),
  /** A report's photo copy: its URL needs the Authorization header, which an <img> cannot send. */
  reportPhoto: (url: string) => http.download(url),
  checkout: (lookupKey: string) =>
    http.post<{ url: string }>('/api/payments/stripe/create-checkout-session/', { lookup_key: lookupKey }),
  testCheckout: (id: string) => http.get<TestCheckout>(`/api/payments/test-checkout/${encodeURIComponent(id)}/`),
  finishTestCheckout: (id: string, outcome: 'complete' | 'cancel') =>
    http.post<{ url: string }>(`/api/payments/test-checkout/${encodeURIComponent(id)}/${outcome}/`),
  subscription: () => http.get<SubscriptionState>('/api/payments/subscription/'),
  portal: () => http.post<PortalResponse>('/api/payments/stripe/create-portal-session/'),
  cancelTestSubscription: () => http.post<PortalResponse>('/api/payments/test-portal/cancel/'),
};
