// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ModerationReport, ModerationReportDetail } from '../../shared/schemas/safety';
import { moderationApi } from '../../client/lib/api-moderation';
import { useModeration } from '../../client/stores/moderation';
import { moderationReport } from '../helpers/moderation-report';

const report = (id: number) => moderationReport({ id });

/** An answer the test lets through when it wants. */
function later<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

describe('the moderation store', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    useModeration.getState().reset();
  });

  it('keeps the report opened last when the one opened before it answers after it', async () => {
    const answers = new Map([
      [1, later<ModerationReportDetail>()],
      [2, later<ModerationReportDetail>()],
    ]);
    vi.spyOn(moderationApi, 'report').mockImplementation((id) => answers.get(id)!.promise);
    // Report 1 opened, then (back to the queue) report 2: 2 answers first, 1 late.
    const first = useModeration.getState().open(1);
    const second = useModeration.getState().open(2);
    answers.get(2)!.resolve(report(2));
    await second;
    answers.get(1)!.resolve(report(1));
    await first;
    expect(useModeration.getState().report?.id).toBe(2);
  });

  it('keeps nothing a report answered after a sign-out', async () => {
    const answer = later<ModerationReportDetail>();
    vi.spyOn(moderationApi, 'report').mockReturnValue(answer.promise);
    const opening = useModeration.getState().open(1);
    useModeration.getState().reset();
    answer.resolve(report(1));
    await opening;
    expect(useModeration.getState().report).toBeNull();
  });

  it('keeps no next page of the other list while the one toggled to loads', async () => {
    const resolved = later<{ results: ModerationReport[]; next: string | null }>();
    vi.spyOn(moderationApi, 'reports').mockImplementation(async (status) =>
      status === 'open' ? { results: [report(1)], next: 'open-page-2' } : resolved.promise,
    );
    await useModeration.getState().load('open');
    expect(useModeration.getState().next).toBe('open-page-2');
    const toggled = useModeration.getState().load('resolved');
    expect(useModeration.getState()).toMatchObject({ status: 'resolved', queue: null, next: null, loading: true });
    resolved.resolve({ results: [], next: null });
    await toggled;
  });
});
