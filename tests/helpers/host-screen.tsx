/**
 * The host screen of event 7 rendered in jsdom, in English. Load it after the file's mocks of its api
 * and socket (`./host-fakes`), as the client's modules it imports are.
 */
import { render } from '@testing-library/react';
import { Suspense } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { initLanguage, useLanguage } from '../../client/lib/i18n';
import '../../client/lib/messages-events';
import { HostScreen } from '../../client/pages/events/HostScreen';

/** Before the file's tests: the copy in English, there before a test fakes the clock (the screen never waits for it). */
export async function inEnglish() {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  await useLanguage.getState().setLanguage('en');
}

/** The host screen of event 7, at its own address. */
export function renderHostScreen() {
  const { hook } = memoryLocation({ path: '/app/events/7/host/' });
  return render(
    <Router hook={hook}>
      <Suspense fallback={null}>
        <HostScreen id={7} />
      </Suspense>
    </Router>,
  );
}
