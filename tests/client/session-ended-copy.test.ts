import { describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';

// The notice shows on whatever the user signs in with again: a laptop as much as a phone.
const DEVICE = /\b(phone|mobile|laptop|computer|tel[ée]fono|m[óo]vil|port[áa]til|ordenador)\b/i;

describe('the login page’s notices of a session the server ended', () => {
  it.each([
    ['en', en['login.ended']],
    ['es', es['login.ended']],
    ['en', en['login.suspended']],
    ['es', es['login.suspended']],
    ['en', en['login.deleted']],
    ['es', es['login.deleted']],
    ['en', en['login.unsent']],
    ['es', es['login.unsent']],
  ])('names no kind of device (%s)', (_language, text) => {
    expect(text).toBeTruthy();
    expect(text).not.toMatch(DEVICE);
  });
});
