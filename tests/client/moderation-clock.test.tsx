// @vitest-environment jsdom
/**
 * The moderation queue and a report say how long ago a report was made by the server's clock. Until its
 * first answer of the session they have only the phone's; once it comes, minutes off, what they say
 * changes at once, not at whatever renders them next. And it moves as time goes by, the page left open.
 * The api is faked: the queue and the report.
 */
import { act, cleanup, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { moderationReport } from '../helpers/moderation-report';
import { renderAt } from '../helpers/render-at';

const moderationApi = vi.hoisted(() => ({ reports: vi.fn(), report: vi.fn() }));
vi.mock('../../client/lib/api-moderation', () => ({ moderationApi }));

const { Moderation } = await import('../../client/pages/app/moderation/Moderation');
const { initLanguage } = await import('../../client/lib/i18n');
const { useServerAhead } = await import('../../client/lib/server-clock');
const { useModeration } = await import('../../client/stores/moderation');

const MINUTE = 60_000;
const phoneNow = new Date(2026, 11, 5, 12, 0);
// Made two minutes ago by the phone's clock; twelve by the server's, ten minutes ahead of it.
const report = moderationReport({ id: 3, created_at: new Date(phoneNow.getTime() - 2 * MINUTE).toISOString() });

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  vi.setSystemTime(phoneNow);
  moderationApi.reports.mockResolvedValue({ results: [report], next: null });
  moderationApi.report.mockResolvedValue(report);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.resetAllMocks();
  useServerAhead.setState(0, true);
  useModeration.getState().reset();
  localStorage.clear();
});

const open = (path: string) =>
  renderAt(
    path,
    <Suspense fallback={null}>
      <Moderation />
    </Suspense>,
  );
/** The server's clock heard: ten minutes ahead of the phone's. */
const serverHeard = () => act(() => useServerAhead.setState(10 * MINUTE, true));

it("says a report's age in the queue again once the server's clock is heard", async () => {
  open('/app/moderation/');
  const age = await screen.findByText('2 minutes ago');
  serverHeard();
  expect(age.textContent).toBe('12 minutes ago');
});

it("says a report's age on its page again once the server's clock is heard", async () => {
  open(`/app/moderation/reports/${report.id}/`);
  const line = await screen.findByText(/\(2 minutes ago\)/);
  serverHeard();
  expect(line.textContent).toContain('(12 minutes ago)');
});

/** A minute goes by, the page left open. */
const aMinuteLater = () => act(() => vi.advanceTimersByTime(MINUTE));

it("moves a report's age in the queue while the page stays open", async () => {
  open('/app/moderation/');
  const age = await screen.findByText('2 minutes ago');
  aMinuteLater();
  expect(age.textContent).toBe('3 minutes ago');
});

it("moves a report's age on its page while the page stays open", async () => {
  open(`/app/moderation/reports/${report.id}/`);
  const line = await screen.findByText(/\(2 minutes ago\)/);
  aMinuteLater();
  expect(line.textContent).toContain('(3 minutes ago)');
});
