import { afterEach, describe, expect, it, vi } from 'vitest';
import { timeTicks } from '../../client/lib/event-chart';

// Local times, as the organizer's screen shows them.
const at = (day: number, hour: number, minute = 0) => new Date(2026, 10, day, hour, minute).getTime() / 1000;

describe("the host chart's time axis", () => {
  it('reads in the screen’s language: 24-hour times in Spanish, the day at midnight', () => {
    const splits = [at(21, 22), at(21, 22, 30), at(22, 0), at(22, 1)];
    expect(timeTicks('es')(null, splits)).toEqual(['22:00', '22:30', '22 nov', '1:00']);
    // English as the browser writes it: British by default (this app's public), American for an American browser.
    expect(timeTicks('en')(null, splits)).toEqual(['22:00', '22:30', '22 Nov', '1:00']);
    vi.stubGlobal('navigator', { languages: ['es-ES', 'en-US'] });
    expect(timeTicks('en')(null, splits)).toEqual(['10:00 PM', '10:30 PM', 'Nov 22', '1:00 AM']);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
});
