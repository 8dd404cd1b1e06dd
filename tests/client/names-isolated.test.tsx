// @vitest-environment jsdom
/**
 * A person's name in the app's sentences keeps its direction to itself, in a <bdi>. An Arabic or Hebrew name, or one ending in "!" or digits, left in the sentence's
 * own run took the words and numbers next to it into its direction: "Ahora tú y مريم 2 podéis
 * chatear" read with the 2 and the words around it moved, "مريم 2, 27" on a card as "27 ,2 مريم".
 */
import { act, cleanup, render, screen, within } from '@testing-library/react';
import { Suspense, type ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';

const { MatchOverlay } = await import('../../client/components/MatchOverlay');
const { SwipeCard } = await import('../../client/components/SwipeCard');
const { Toaster } = await import('../../client/components/Toaster');
const { SwitchEventSheet } = await import('../../client/pages/events/SwitchEventSheet');
const { SafetyDialog } = await import('../../client/components/SafetyDialog');
const { initLanguage, useMessages, ti } = await import('../../client/lib/i18n');
const { appMessages } = await import('../../client/lib/messages-app');
const { eventsMessages } = await import('../../client/lib/messages-events');
const { safetyMessages } = await import('../../client/lib/messages-safety');
const { useDeck } = await import('../../client/stores/deck');
const { usePresence } = await import('../../client/stores/presence');
const { PartnerAvatar } = await import('../../client/components/PartnerAvatar');
const { toast } = await import('../../client/lib/toast');

const NAME = 'مريم 2!';
const EVENT = 'שישי 90';

function Shown({ children }: { children: ReactNode }) {
  useMessages(appMessages);
  useMessages(eventsMessages);
  useMessages(safetyMessages);
  return (
    <>
      <h1>Ready</h1>
      {children}
    </>
  );
}

async function show(children: ReactNode) {
  render(
    <Suspense fallback={null}>
      <Shown>{children}</Shown>
    </Suspense>,
  );
  await screen.findByRole('heading', { name: 'Ready' });
}

/** The element holds the copy with the name in a <bdi> of its own, and nothing but the name in it. */
function expectIsolated(element: Element, name: string) {
  const isolates = [...element.querySelectorAll('bdi')];
  expect(isolates.map((bdi) => bdi.textContent)).toContain(name);
  expect(element.textContent).toContain(name);
}

describe('a name in the copy around it (Spanish)', () => {
  beforeEach(async () => {
    localStorage.clear();
    await initLanguage();
  });
  afterEach(() => {
    act(() => toast.dismiss());
    cleanup();
    useDeck.getState().reset();
  });

  it('is in its own <bdi> on the match overlay', async () => {
    await show(<MatchOverlay />);
    act(() => useDeck.getState().showMatch({ conversationId: 7, name: NAME, image: null }));
    const text = document.getElementById('match-text')!;
    expect(text.textContent).toBe(format(es['deck.match.text'], { name: NAME }));
    expectIsolated(text, NAME);
  });

  it('is in its own <bdi> on a deck card, apart from the age after it', async () => {
    await show(<SwipeCard card={{ id: 1, name: NAME, age: 27, bio: '', image: null }} exitOffset={null} onDecide={() => {}} onOpen={() => {}} />);
    const heading = screen.getByRole('heading', { level: 2 });
    expectIsolated(heading, NAME);
    expect(heading.querySelector('bdi')!.textContent).toBe(NAME);
  });

  it("lets a person's own text (a bio, a name typed) read in its own direction", async () => {
    await show(<SwipeCard card={{ id: 1, name: NAME, age: 27, bio: 'أحب الموسيقى 24/7!', image: null }} exitOffset={null} onDecide={() => {}} onOpen={() => {}} />);
    expect(screen.getByText('أحب الموسيقى 24/7!').getAttribute('dir')).toBe('auto');
  });

  it("is in its own <bdi> in a confirm sheet's title, button and text", async () => {
    await show(<SwitchEventSheet current={{ name: EVENT }} target={{ name: NAME }} busy={false} onConfirm={() => {}} onClose={() => {}} />);
    const dialog = screen.getByRole('dialog');
    expectIsolated(within(dialog).getByRole('heading'), EVENT);
    expectIsolated(within(dialog).getByRole('button', { name: format(es['events.switch.confirm'], { name: NAME }) }), NAME);
    expectIsolated(dialog.querySelector('p')!, EVENT);
  });

  it('is in its own <bdi> in the block and report sheets', async () => {
    await show(<SafetyDialog action="block" person={{ id: 3, name: NAME }} conversationId={7} onClose={() => {}} onDone={() => {}} />);
    expectIsolated(within(screen.getByRole('dialog')).getByRole('heading'), NAME);
    cleanup();
    await show(<SafetyDialog action="report" person={{ id: 3, name: NAME }} conversationId={7} onClose={() => {}} onDone={() => {}} />);
    const dialog = screen.getByRole('dialog');
    expectIsolated(within(dialog).getByRole('heading'), NAME);
    const blocks = [...dialog.querySelectorAll('p')].find((p) => p.textContent?.includes(format(es['safety.report.blocks'], { name: NAME })))!;
    expectIsolated(blocks, NAME);
  });

  it("is in its own <bdi> in a toast, and a message's text reads in its own direction", async () => {
    await show(<Toaster />);
    act(() => void toast.success(ti('safety.block.done', { name: NAME })));
    act(() => void toast.message('!سلام 3', { title: NAME }));
    const done = document.querySelector('.toast-success p')!;
    expect(done.textContent).toBe(format(es['safety.block.done'], { name: NAME }));
    expectIsolated(done, NAME);
    expectIsolated(document.querySelector('.toast-title')!, NAME);
    expect(document.querySelector('.toast-text[dir]')!.getAttribute('dir')).toBe('auto');
  });

  it('keeps only the name in the <bdi>, its direction controls taken out', async () => {
    await show(<p data-testid="said">{ti('deck.match.text', { name: 'Eve\u202Edecnuonna' })}</p>);
    expect(screen.getByTestId('said').querySelector('bdi')!.textContent).toBe('Evedecnuonna');
  });

  it('is in a Unicode isolate (FSI … PDI) in an aria-label, which holds no <bdi>, when it reads right to left', async () => {
    usePresence.setState({ online: new Set([3]) });
    await show(<PartnerAvatar userId={3} name={NAME} image={null} size={40} />);
    expect(screen.getByRole('img', { name: /en línea/ }).getAttribute('aria-label')).toBe(es['presence.online'].replace('{name}', `\u2068${NAME}\u2069`));
    // A name that reads left to right reads the same either way: its label stays the words shown.
    cleanup();
    await show(<PartnerAvatar userId={3} name="Ana 2!" image={null} size={40} />);
    expect(screen.getByRole('img', { name: 'Ana 2! está en línea' })).toBeTruthy();
  });
});
