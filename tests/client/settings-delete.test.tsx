// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { es } from '../../shared/i18n/es';
import { initLanguage } from '../../client/lib/i18n';
import { Settings } from '../../client/pages/app/Settings';
import { useSession } from '../../client/stores/session';
import { currentUser } from '../helpers/current-user';

async function openConfirmStep() {
  await initLanguage();
  render(
    <Suspense fallback={null}>
      <Settings />
    </Suspense>,
  );
  const start = await screen.findByRole('button', { name: es['settings.delete.start'] });
  start.focus();
  fireEvent.click(start);
  return screen.getByLabelText(es['settings.delete.confirmPassword']);
}

describe('Settings → Delete my account, its confirm step', () => {
  beforeEach(() => {
    window.history.replaceState(null, '', '/app/settings/');
    useSession.setState({ user: currentUser() });
  });
  afterEach(() => {
    cleanup();
    useSession.setState({ user: null });
  });

  it('Cancel closes it and gives the focus back to "Delete my account"', async () => {
    await openConfirmStep();
    fireEvent.click(screen.getByRole('button', { name: es['settings.delete.cancel'] }));
    expect(screen.queryByLabelText(es['settings.delete.confirmPassword'])).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: es['settings.delete.start'] }));
  });

  it('tells a subscriber the plan ends now, unrefunded; says nothing of a plan to anyone else', async () => {
    useSession.setState({ user: currentUser({ has_subscription: true }) });
    await openConfirmStep();
    expect(screen.getByText(es['settings.delete.plan'])).toBeTruthy();
    cleanup();
    useSession.setState({ user: currentUser() });
    await openConfirmStep();
    expect(screen.queryByText(es['settings.delete.plan'])).toBeNull();
  });

  it('Escape in the step closes it the same way', async () => {
    const password = await openConfirmStep();
    expect(document.activeElement).toBe(password);
    fireEvent.keyDown(password, { key: 'Escape' });
    expect(screen.queryByLabelText(es['settings.delete.confirmPassword'])).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: es['settings.delete.start'] }));
  });

  /** A Google-only account's deletion, opened: its field for the word. */
  async function openWordStep() {
    useSession.setState({ user: currentUser({ has_password: false }) });
    await initLanguage();
    render(
      <Suspense fallback={null}>
        <Settings />
      </Suspense>,
    );
    fireEvent.click(await screen.findByRole('button', { name: es['settings.delete.start'] }));
    return screen.getByLabelText<HTMLInputElement>(es['settings.delete.confirmWord']);
  }

  it("asks a Google-only account for the word in capitals, with the phone's keyboard in capitals and not correcting it", async () => {
    const word = await openWordStep();
    // A phone's keyboard would start it "Delete" (or correct it), which the server refuses.
    expect(word.getAttribute('autocapitalize')).toBe('characters');
    expect(word.getAttribute('autocorrect')).toBe('off');
    expect(word.getAttribute('spellcheck')).toBe('false');
    expect(document.activeElement).toBe(word);
  });

  it('leaves the word\'s field empty-looking: no placeholder that reads as the word already typed', async () => {
    const word = await openWordStep();
    expect(word.value).toBe('');
    expect(word.placeholder).toBe('');
  });
});
