import { describe, expect, it } from 'vitest';
import { withLinks } from '../../client/lib/links';

describe('links in a message', () => {
  it('leaves text without an address as one plain part', () => {
    expect(withLinks('by the bar, green jacket')).toEqual([{ text: 'by the bar, green jacket' }]);
  });

  it('cuts out web addresses with or without a scheme, and e-mail addresses, keeping the text whole', () => {
    const text = 'my insta: instagram.com/ana_party, the map https://maps.example.com/?q=Sala+Apolo. or ana@example.com';
    const parts = withLinks(text);
    expect(parts.map((part) => part.text).join('')).toBe(text);
    expect(parts.filter((part) => part.href)).toEqual([
      { text: 'instagram.com/ana_party', href: 'http://instagram.com/ana_party' },
      { text: 'https://maps.example.com/?q=Sala+Apolo', href: 'https://maps.example.com/?q=Sala+Apolo' },
      { text: 'ana@example.com', href: 'mailto:ana@example.com' },
    ]);
  });

  it('leaves out the sentence’s closing punctuation and a bracket around the address', () => {
    expect(withLinks('(see www.example.com).').filter((part) => part.href)).toEqual([{ text: 'www.example.com', href: 'http://www.example.com' }]);
  });

  it('leaves out a closing quote or an ellipsis after the address, the text kept whole', () => {
    const text = 'Mira «https://example.com/fiesta», “www.example.com” o example.es/mapa…';
    const parts = withLinks(text);
    expect(parts.filter((part) => part.href)).toEqual([
      { text: 'https://example.com/fiesta', href: 'https://example.com/fiesta' },
      { text: 'www.example.com', href: 'http://www.example.com' },
      { text: 'example.es/mapa', href: 'http://example.es/mapa' },
    ]);
    expect(parts.map((part) => part.text).join('')).toBe(text);
  });

  it('leaves out the marks that end a Spanish sentence after the address: ?!, !!, ?», .», !…', () => {
    const web = (address: string) => ({ text: address, href: `http://${address}` });
    for (const [text, link] of [
      ['¿instagram.com/ana?', web('instagram.com/ana')],
      ['(correo: ana@example.es).', { text: 'ana@example.es', href: 'mailto:ana@example.es' }],
      ['¡Mira example.com/fiesta!!', web('example.com/fiesta')],
      ['¿Vienes? example.com/fiesta?!', web('example.com/fiesta')],
      ['¡¿En example.com/fiesta!?', web('example.com/fiesta')],
      ['Dijo «example.com/fiesta.»', web('example.com/fiesta')],
      ['¿Viste «example.com/fiesta?»', web('example.com/fiesta')],
      ['“example.com/fiesta!”', web('example.com/fiesta')],
      ['Ven a example.com/fiesta!… o no', web('example.com/fiesta')],
      ['Mi web: example.com/fiesta: pásate', web('example.com/fiesta')],
    ] as const) {
      const parts = withLinks(text);
      expect(parts.filter((part) => part.href)).toEqual([link]);
      expect(parts.map((part) => part.text).join('')).toBe(text);
    }
  });

  it('links an e-mail address inside «», quotes or ¿?¡! too, the text kept whole', () => {
    for (const text of ['Escríbeme: «ana@example.com».', '“ana@example.com”', '‘ana@example.com’', "'ana@example.com'", '¿ana@example.com?', '¡ana@example.com!', '(«ana@example.com»)', '¡“ana@example.com”!']) {
      const parts = withLinks(text);
      expect(parts.filter((part) => part.href)).toEqual([{ text: 'ana@example.com', href: 'mailto:ana@example.com' }]);
      expect(parts.map((part) => part.text).join('')).toBe(text);
    }
  });

  it('links an e-mail address in «», quotes or ¿?¡! after a word and its colon or comma, or after a dash or an ellipsis', () => {
    for (const text of [
      'correo:«ana@example.com»',
      'mailto:«ana@example.com»',
      'correo:“ana@example.com”.',
      'Escríbeme:¡ana@example.com!',
      'hola,¿ana@example.com?',
      'x;‘ana@example.com’',
      '(correo:«ana@example.com»)',
      '—¿Me escribes? —ana@example.com',
      '—«ana@example.com»',
      'Escríbeme… …ana@example.com',
    ]) {
      const parts = withLinks(text);
      expect(parts.filter((part) => part.href)).toEqual([{ text: 'ana@example.com', href: 'mailto:ana@example.com' }]);
      expect(parts.map((part) => part.text).join('')).toBe(text);
    }
    expect(withLinks('correo:«josé@correo.es»').filter((part) => part.href)).toEqual([{ text: 'josé@correo.es', href: 'mailto:josé@correo.es' }]);
  });

  it('keeps a web address whole with a quote or a ¿ and a name@host in it: no e-mail address inside', () => {
    for (const [text, href] of [
      ["see https://example.com/'name@example.org", "https://example.com/'name@example.org"],
      ["instagram.com/ana'sofia@example.com", "http://instagram.com/ana'sofia@example.com"],
      ['https://example.com/?q=¿ana@example.com', 'https://example.com/?q=¿ana@example.com'],
      ['https://example.com/«ana@example.com', 'https://example.com/«ana@example.com'],
      ["instagram.com/ana:'sofia@example.com", "http://instagram.com/ana:'sofia@example.com"],
      ['https://example.com/?a=1,«ana@example.com', 'https://example.com/?a=1,«ana@example.com'],
    ] as const) {
      const parts = withLinks(text);
      expect(parts.filter((part) => part.href)).toEqual([{ text: href.replace('http://', ''), href }]);
      expect(parts.map((part) => part.text).join('')).toBe(text);
    }
  });

  it('takes a quote inside a word for part of it: no piece of an address linked', () => {
    for (const text of ["o'neil@example.com", 'josé‘ana@example.com']) {
      expect(withLinks(text)).toEqual([{ text }]);
    }
  });

  it('links only the mailbox: no word glued on by a colon or a comma, no second recipient', () => {
    for (const text of ['correo:ana@example.com', 'hola,ana@example.com', 'mailto:eve,ana@example.com', 'x;ana@example.com']) {
      const parts = withLinks(text);
      expect(parts.filter((part) => part.href)).toEqual([{ text: 'ana@example.com', href: 'mailto:ana@example.com' }]);
      expect(parts.map((part) => part.text).join('')).toBe(text);
    }
  });

  it('links an e-mail address with accents in its name whole, as one with them in its domain', () => {
    for (const address of ['josé@correo.es', 'núñez.ana@gmail.com', 'ana.josé@example.com', 'zoë@españa.es']) {
      for (const text of [address, `Escríbeme a ${address}.`, `«${address}»`, `correo:${address}`, `mailto:${address}`]) {
        const parts = withLinks(text);
        expect(parts.filter((part) => part.href)).toEqual([{ text: address, href: `mailto:${address}` }]);
        expect(parts.map((part) => part.text).join('')).toBe(text);
      }
    }
    // Inside a web address, it is part of it.
    expect(withLinks('españa.es/josé@correo.es').filter((part) => part.href)).toEqual([
      { text: 'españa.es/josé@correo.es', href: 'http://españa.es/josé@correo.es' },
    ]);
  });

  it('links no script, protocol-relative or ftp address', () => {
    for (const text of ['javascript:alert(1)', '//evil.example.com', 'ftp://files.example.com']) {
      // At most the host, as a plain web address ("evil.example.com" is one, written that way).
      expect(withLinks(text).filter((part) => part.href && !part.href.startsWith('http://'))).toEqual([]);
    }
  });
});
