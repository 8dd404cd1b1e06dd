/**
 * "At" a time in Spanish says the hour with its article, singular for one o'clock: "Más a la 1:05",
 * "a las 22:00" (it said "a las 1:05"). The article comes with the time (`withHourArticle`), so the
 * Spanish copy says "a {time}".
 */
import { describe, expect, it } from 'vitest';
import { formatTime, withHourArticle } from '../../client/lib/format';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';

const at = (hour: number, minute: number) => new Date(2026, 10, 21, hour, minute).toISOString();
const said = (hour: number, minute: number) => withHourArticle(formatTime(at(hour, minute), 'es'), 'es');

describe('a time after "a" in Spanish', () => {
  it('is "la 1:05" from one to two, "las" otherwise', () => {
    expect([said(1, 5), said(1, 59), said(13, 5), said(22, 0), said(0, 30), said(10, 0), said(11, 15), said(2, 0)]).toEqual([
      'la 1:05',
      'la 1:59',
      'las 13:05',
      'las 22:00',
      'las 0:30',
      'las 10:00',
      'las 11:15',
      'las 2:00',
    ]);
    // As a twelve-hour clock or a zero in front writes it, too.
    expect([withHourArticle('1:05 p. m.', 'es'), withHourArticle('01:05', 'es'), withHourArticle('12:05 a. m.', 'es')]).toEqual(['la 1:05 p. m.', 'la 01:05', 'las 12:05 a. m.']);
    expect(withHourArticle('1:05 AM', 'en')).toBe('1:05 AM');
  });

  it('reads right in the copy that says when: the likes back, an event shortened', () => {
    expect(format(es['deck.likesOut'], { limit: 100, time: said(1, 5) })).toBe('Has usado tus 100 likes. Más a la 1:05.');
    expect(format(es['deck.likesOutTomorrow'], { limit: 100, time: said(23, 0) })).toBe('Has usado tus 100 likes. Más mañana a las 23:00.');
    expect(format(es['events.edit.endSoonTitle'], { time: said(1, 30) })).toBe('¿Terminar el evento a la 1:30?');
    // No copy writes the article itself: it would say "a las 1:05" again.
    expect(Object.entries(es).filter(([, text]) => /\b(la|las) \{time\}/.test(text))).toEqual([]);
  });
});
