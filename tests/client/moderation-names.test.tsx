// @vitest-environment jsdom
/**
 * A reported person's name on a report's page keeps its direction to itself, in a <bdi>. Anyone names
 * themselves: a name ending in a right-to-left override (U+202E) left in the line's own run turned
 * the rest of the line around, and a 17-year-old reported as underage read ", 71" beside the name
 * ("AnaelameF · 71 ,"), the report count likewise. The api is faked: the report.
 */
import { cleanup, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { moderationReport } from '../helpers/moderation-report';
import { renderAt } from '../helpers/render-at';

const moderationApi = vi.hoisted(() => ({ reports: vi.fn(), report: vi.fn() }));
vi.mock('../../client/lib/api-moderation', () => ({ moderationApi }));

const { Moderation } = await import('../../client/pages/app/moderation/Moderation');
const { initLanguage } = await import('../../client/lib/i18n');
const { useModeration } = await import('../../client/stores/moderation');

const NAME = 'Ana\u202E';
const report = moderationReport({
  id: 4,
  reason: 'underage',
  reported: { id: 2, name: NAME, report_count: 3, banned: false },
  snapshot: { profile: { name: NAME, bio: 'Hi', age: 17, gender: 'female', photos: [] }, messages: [] },
});

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  moderationApi.report.mockResolvedValue(report);
});
afterEach(() => {
  cleanup();
  vi.resetAllMocks();
  useModeration.getState().reset();
  localStorage.clear();
});

/** The element's text with the name in a <bdi> of its own, and nothing else in it. */
function expectIsolated(element: Element) {
  expect([...element.querySelectorAll('bdi')].map((bdi) => bdi.textContent)).toEqual([NAME]);
}

it("isolates the reported person's name from the age and the report count after it", async () => {
  renderAt(
    `/app/moderation/reports/${report.id}/`,
    <Suspense fallback={null}>
      <Moderation />
    </Suspense>,
  );
  const snapshotName = await screen.findByText((_, element) => element?.classList.contains('snapshot-name') ?? false);
  expect(snapshotName.textContent).toMatch(/^Ana\u202E, 17 · /);
  expectIsolated(snapshotName);
  const reported = screen.getByText('Reported').nextElementSibling!;
  expect(reported.textContent).toMatch(/:\s3/);
  expectIsolated(reported);
});
