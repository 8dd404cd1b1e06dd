import { useEffect, useState } from 'react';
import { NetworkError } from './api';
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
  // The failure, said in the language shown: "No connection" goes once the app is connected again (the
  // next tap may well work).
  const [failure, setFailure] = useState<unknown>(null);
  useRetryWhenBackOnline(failure instanceof NetworkError, () => setFailure(null));
  // Back from the page it went to, a browser may show this one as it was left (its back-forward
  // cache): busy, with nothing on its way. It is pressed again from there.
  useEffect(() => {
    const shown = (event: PageTransitionEvent) => event.persisted && setBusy(false);
    addEventListener('pageshow', shown);
    return () => removeEventListener('pageshow', shown);
  }, []);
  async function go(call: () => Promise<{ url: string }>) {
    setBusy(true);
    setFailure(null);
    try {
      const { url } = await call();
      window.location.assign(url);
    } catch (caught) {
      setFailure(caught);
      setBusy(false);
    }
  }
  return { busy, error: failure === null ? null : errorMessage(failure, t), go };
}
