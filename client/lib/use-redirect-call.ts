import { useEffect, useState } from 'react';
import { errorMessage } from './errors';
import { useT } from './i18n';
import { useRetryWhenBackOnline } from './socket';

/**
 * Sends the browser to the address a call answers (Checkout, the customer portal, a test checkout's
 * outcome); says why it could not, and stays busy until the page goes.
 */
export function useRedirectCall() {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // "No connection" goes once the app is connected again: the next tap may well work.
  useRetryWhenBackOnline(error === t('error.network'), () => setError(null));
  // Back from the page it went to, a browser may show this one as it was left (its back-forward
  // cache): busy, with nothing on its way. It is pressed again from there.
  useEffect(() => {
    const shown = (event: PageTransitionEvent) => event.persisted && setBusy(false);
    addEventListener('pageshow', shown);
    return () => removeEventListener('pageshow', shown);
  }, []);
  async function go(call: () => Promise<{ url: string }>) {
    setBusy(true);
    setError(null);
    try {
      const { url } = await call();
      window.location.assign(url);
    } catch (failure) {
      setError(errorMessage(failure, t));
      setBusy(false);
    }
  }
  return { busy, error, go };
}
