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
import type { CheckoutOutcome, TestCheckout } from '../../shared/schemas/payments';
import type { LikeAllowance, LikesYouPage, PortalResponse, SubscriptionState, Undoable, UndoResult } from '../../shared/schemas/plan';
import type { BlockedUser, EndedChat, ReportInput } from '../../shared/schemas/safety';
import { ANSWER_TIMEOUT_MS, api as core, type ApiError, http, isRecord, NetworkError, type Page, toError } from './api';
import { getToken } from './storage';

/** The most a call waits, in all, for an instance that said it will be back (`again`). */
const RESTART_WAIT_S = 5;

/**
 * A call safe to repeat, sent again after a 503 that says when (`Retry-After`: an instance draining for
 * a deploy or a restart, a write rolled back by a deadlock; neither did anything), to an instance that
 * is up, for up to RESTART_WAIT_S in all: the person sees a short wait, not "the server is restarting".
 * A 503 with no time said (a service of ours down), and any other failure, are the caller's, as before.
 */
export async function again<T>(call: () => Promise<T>, waited = 0, token = getToken()): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // What `http` throws is an ApiError (NetworkError for no answer at all).
    const seconds = (error as ApiError).status === 503 ? (error as ApiError).retryAfterSeconds : null;
    // At least a second a try, whatever it said (`Retry-After: 0`): never a loop.
    const wait = Math.max(seconds ?? RESTART_WAIT_S, 1);
    if (seconds == null || waited + wait > RESTART_WAIT_S) throw error;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    // Not in the name of whoever signed in here meanwhile.
    if (getToken() !== token) throw error;
    return again(call, waited + wait, token);
  }
}

/**
 * The calls safe to repeat: reads, and the writes whose second sending changes nothing more (a PUT,
 * a check-in, a reaction kept per pair, a message with its client_id, a block). Those that would do it
 * twice (an event or a report created, a checkout) use `http`'s own, sent once.
 */
const get = <T>(path: string) => again(() => http.get<T>(path));
const post = <T>(path: string, body?: unknown) => again(() => http.post<T>(path, body));
const put = <T>(path: string, body: unknown) => again(() => http.put<T>(path, body));
const del = <T>(path: string) => again(() => http.del<T>(path));

/**
 * Upload progress needs XMLHttpRequest: fetch cannot report bytes sent. Given up as unanswered
 * (`NetworkError`) once nothing has moved for ANSWER_TIMEOUT_MS since bytes went out: no more sent
 * and no answer (a party's half-dead Wi-Fi), which left the photo "uploading" and the profile
 * unsavable for good.
 */
function uploadFile(file: File, onProgress?: (fraction: number) => void, signal?: AbortSignal): Promise<{ url: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    signal?.addEventListener('abort', () => xhr.abort());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const wait = () => {
      clearTimeout(timer);
      timer = setTimeout(() => xhr.abort(), ANSWER_TIMEOUT_MS);
    };
    xhr.open('POST', '/api/uploads/');
    const sent = getToken();
    for (const [name, value] of Object.entries(http.headers(false))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      wait();
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    xhr.onerror = xhr.onabort = () => reject(new NetworkError(0, 'Network error'));
    xhr.onloadend = () => clearTimeout(timer);
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
      // A 401 signs out as any other call's does (`refusal`).
      reject(http.refusal(toError(xhr.status, body, xhr.getResponseHeader('Retry-After')), sent));
    };
    const form = new FormData();
    form.append('file', file);
    // Timed from its first bytes out: one the browser holds back for a free connection (six photos
    // picked at once, on HTTP/1.1) has not stalled.
    xhr.send(form);
  });
}

export const api = {
  ...core,
  myProfile: () => get<OwnProfile>('/api/users/me/profile/'),
  saveProfile: (profile: ProfileInput) => put<OwnProfile>('/api/users/me/profile/', profile),
  saveLanguage: (language: Language) => put<null>('/api/users/me/language/', { language }),
  profile: (id: number) => get<PublicProfile>(`/api/users/${id}/profile/`),
  upload: uploadFile,
  deck: (cursor?: string) => get<Page<DeckCard>>(`/api/users/matching-profiles/${http.query({ cursor })}`),
  /** `retry`: sent again after no answer; the server answers a stored one as it did the first time. */
  react: (other: number, response: Reaction, retry?: true) => post<ReactionResult>('/api/matching/', { response, other, retry }),
  /** Takes back the pass on `userId`, only if it is still the account's last reaction (409 `nothing_to_undo` otherwise). */
  undo: (userId: number) => http.post<UndoResult>('/api/matching/undo/', { user_id: userId }),
  undoable: () => get<Undoable>('/api/matching/undo/'),
  likeAllowance: () => get<LikeAllowance>('/api/matching/allowance/'),
  likesYou: (cursor?: string) => get<LikesYouPage>(`/api/users/me/likes/${http.query({ cursor })}`),
  emptyConversations: (cursor?: string) => get<Page<ConversationSummary>>(`/api/conversations/empty/${http.query({ cursor })}`),
  startedConversations: (cursor?: string) => get<Page<ConversationSummary>>(`/api/conversations/started/${http.query({ cursor })}`),
  conversation: (id: number) => get<ConversationDetail>(`/api/conversations/${id}/`),
  messages: (id: number, params: { cursor?: string; after?: number } = {}) =>
    get<Page<Message>>(`/api/conversations/${id}/messages/${http.query(params)}`),
  sendMessage: (id: number, content: string, clientId: string) =>
    post<Message>(`/api/conversations/${id}/messages/`, { content, client_id: clientId }),
  /** The socket's `message:read`, for a tab with none. */
  markRead: (id: number, lastReadId: number) => post<null>(`/api/conversations/${id}/read/`, { last_read_id: lastReadId }),
  /** With the server's time (`now`), for the clock of a visitor not signed in. */
  event: (code: string) => get<PublicEventPage>(`/api/events/${encodeURIComponent(code)}/`),
  eventPass: (code: string, token: string) => post<JoinPass>(`/api/events/${encodeURIComponent(code)}/pass/`, { token }),
  checkIn: (code: string, proof: CheckInInput = {}) => post<CheckedIn>(`/api/events/${encodeURIComponent(code)}/check-in/`, proof),
  currentEvent: () => get<CurrentEvent>('/api/events/current/'),
  leaveEvent: () => post<null>('/api/events/leave/'),
  myEvents: (cursor?: string) => get<Page<OrganizerEvent>>(`/api/events/mine/${http.query({ cursor })}`),
  createEvent: (input: EventInputBody) => http.post<OrganizerEvent>('/api/events/', input),
  eventQr: (id: number) => get<EventQr>(`/api/events/${id}/qr/`),
  eventStats: (id: number) => get<EventStats>(`/api/events/${id}/stats/`),
  updateEvent: (id: number, change: EventUpdate) => again(() => http.request<OrganizerEvent>('PATCH', `/api/events/${id}/`, change)),
  endEvent: (id: number) => post<OrganizerEvent>(`/api/events/${id}/end/`),
  deleteEvent: (id: number) => del<null>(`/api/events/${id}/`),
  /** Safety: each ends the conversation for both; the socket says `match:removed`. */
  block: (userId: number) => post<null>(`/api/users/${userId}/block/`),
  unblock: (userId: number) => del<null>(`/api/users/${userId}/block/`),
  blocks: (cursor?: string) => get<Page<BlockedUser>>(`/api/users/me/blocks/${http.query({ cursor })}`),
  /** Chats that ended lately, however they ended: their people can still be reported. */
  endedChats: (cursor?: string) => get<Page<EndedChat>>(`/api/conversations/ended/${http.query({ cursor })}`),
  unmatch: (conversationId: number) => del<null>(`/api/conversations/${conversationId}/`),
  report: (input: ReportInput) => http.post<{ id: number }>('/api/reports/', input),
  checkout: (lookupKey: string) =>
    http.post<{ url: string }>('/api/payments/stripe/create-checkout-session/', { lookup_key: lookupKey }),
  testCheckout: (id: string) => get<TestCheckout>(`/api/payments/test-checkout/${encodeURIComponent(id)}/`),
  finishTestCheckout: (id: string, outcome: 'complete' | 'cancel') =>
    http.post<{ url: string }>(`/api/payments/test-checkout/${encodeURIComponent(id)}/${outcome}/`),
  checkoutOutcome: (id: string) => get<CheckoutOutcome>(`/api/payments/checkout/${encodeURIComponent(id)}/`),
  subscription: () => get<SubscriptionState>('/api/payments/subscription/'),
  portal: () => http.post<PortalResponse>('/api/payments/stripe/create-portal-session/'),
  cancelTestSubscription: () => http.post<PortalResponse>('/api/payments/test-portal/cancel/'),
};
