// @vitest-environment jsdom
/**
 * The host screen waiting for its event, on a laptop: it takes the width of the door's layout it
 * loads into (events.css), where it took the narrow column and widened by half the screen (a layout
 * shift) as the event came. The api's answer is held; the layout itself is the e2e's to measure.
 */
import { readFileSync } from 'node:fs';
import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { api } from '../helpers/host-fakes';
import { inEnglish, renderHostScreen } from '../helpers/host-screen';

vi.mock(import('../../client/lib/socket'), async (original) => ({
  ...(await original()),
  ...(await import('../helpers/host-fakes')).socketHearing(null),
}));
vi.mock('../../client/lib/api-app', () => import('../helpers/host-fakes'));

const { openHostScreen } = await import('../../client/stores/host');

beforeAll(inEnglish);
afterEach(() => {
  cleanup();
  vi.resetAllMocks();
});

it('waits for its event in the width the door’s layout takes', () => {
  api.myEvents.mockReturnValue(new Promise(() => {}));
  const stop = openHostScreen(7);
  renderHostScreen();

  expect(screen.getByRole('status').closest('.host-waiting')).not.toBeNull();
  expect(readFileSync('client/events.css', 'utf8')).toContain('.app-main:has(.host-door, .host-waiting) {');
  stop();
});
