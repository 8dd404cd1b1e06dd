/**
 * One word for a dislike in each language, wherever the app says it (the deck's buttons, hint and
 * stamp, a profile's buttons, "Likes you", the landing page, the plan's copy, the server's messages):
 * in Spanish «no» ("decir que no"), never "no me gusta", "pasar" nor "PASO"; in English "dislike",
 * as the deck's buttons say, never "pass".
 */
import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';

/** Every line the app and the server can say in `language`. */
const everything = (language: 'en' | 'es') => [...Object.values(language === 'es' ? es : en), ...Object.values(SERVER_MESSAGES).map((message) => message[language])];

describe('a dislike', () => {
  it('is «no» in Spanish, everywhere', () => {
    expect(everything('es').filter((text) => /no me gusta|\bpas(ar|o)\b/i.test(text))).toEqual([]);
    expect([es['deck.dislike'], es['profileView.reject'], es['likes.pass'], es['deck.stamp.nope']]).toEqual(['Decir que no', 'Decir que no', 'Decir que no a {name}', 'NO']);
    expect(es['deck.hint']).toContain('a la izquierda para decir que no');
    // In the order of the English: like, dislike or skip.
    expect(es['landing.features.2.title']).toBe('Like, «no» o saltar');
    expect(es['subscribe.starter.2']).toContain('«no»');
  });

  it('is a dislike in English, everywhere', () => {
    expect(everything('en').filter((text) => /\bpass(es|ed|ing)?\b/i.test(text))).toEqual([]);
    expect([en['deck.dislike'], en['profileView.reject'], en['likes.pass']]).toEqual(['Dislike', 'Dislike', 'Dislike {name}']);
    expect(en['landing.features.2.title']).toBe('Like, dislike or skip');
    expect(en['portal.confirm.text']).toContain('undoing a dislike or a skip');
  });
});
