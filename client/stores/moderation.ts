import { create } from 'zustand';
import type { ModerationReport, ModerationReportDetail, ResolveInput } from '../../shared/schemas/safety';
import { moderationApi } from '../lib/api-moderation';
import { onSignOut } from './session';

type Status = ModerationReport['status'];

interface ModerationState {
  status: Status;
  /** The queue of `status`: open ones oldest first, resolved ones newest first; null while loading. */
  queue: ModerationReport[] | null;
  next: string | null;
  loading: boolean;
  report: ModerationReportDetail | null;
  load: (status: Status) => Promise<void>;
  loadMore: () => Promise<void>;
  open: (id: number) => Promise<void>;
  /** Resolves a report; on a ban the server resolves the person's other open reports too. */
  resolve: (id: number, input: ResolveInput) => Promise<ModerationReportDetail>;
  reset: () => void;
}

let generation = 0;
/** The same for the report open: only the one opened last (and not since signed out) is kept. */
let opening = 0;

/** The moderation queue and the report a moderator has open (moderators only; the chunk is lazy). */
export const useModeration = create<ModerationState>()((set, get) => ({
  status: 'open',
  queue: null,
  next: null,
  loading: false,
  report: null,
  async load(status) {
    // A toggle while a page is on its way: only the last one asked for is shown.
    const mine = ++generation;
    const shown = get().status === status ? get().queue : null;
    // The other list's next page is not this one's: no "Show more" under its loading.
    set({ status, queue: shown, next: shown && get().next, loading: true });
    try {
      // Read again (a visit, back in view): as many as were shown, "Show more" pages too, so that the
      // list stays as long as it was and the moderator where they had scrolled to.
      let page = await moderationApi.reports(status);
      const queue = page.results;
      while (page.next && queue.length < (shown?.length ?? 0) && mine === generation) {
        page = await moderationApi.reports(status, page.next);
        queue.push(...page.results);
      }
      if (mine === generation) set({ queue, next: page.next });
    } finally {
      if (mine === generation) set({ loading: false });
    }
  },
  async loadMore() {
    const { next, loading, status } = get();
    if (!next || loading) return;
    const mine = ++generation;
    set({ loading: true });
    try {
      const page = await moderationApi.reports(status, next);
      if (mine !== generation) return;
      set((state) => {
        const known = new Set((state.queue ?? []).map((report) => report.id));
        return { queue: [...(state.queue ?? []), ...page.results.filter((report) => !known.has(report.id))], next: page.next };
      });
    } finally {
      if (mine === generation) set({ loading: false });
    }
  },
  async open(id) {
    const mine = ++opening;
    if (get().report?.id !== id) set({ report: null });
    const report = await moderationApi.report(id);
    if (mine === opening) set({ report });
  },
  async resolve(id, input) {
    const report = await moderationApi.resolve(id, input);
    // A ban resolves every open report about that person: they all leave the open queue.
    const gone = (item: ModerationReport) => item.id === id || (input.action === 'ban' && item.reported.id !== null && item.reported.id === report.reported.id);
    set((state) => ({ report, queue: state.status === 'open' && state.queue ? state.queue.filter((item) => !gone(item)) : state.queue }));
    return report;
  },
  reset() {
    generation += 1;
    opening += 1;
    set({ status: 'open', queue: null, next: null, loading: false, report: null });
  },
}));

onSignOut(() => useModeration.getState().reset());
