import { lazy, Suspense } from 'react';
import { GOOGLE_CLIENT_KEY, readStorage } from '../lib/storage';

const GoogleButtonImpl = lazy(() => import('./GoogleButton').then((module) => ({ default: module.GoogleButton })));

/**
 * The Google button's code (and its GET /api/config/) loads after the form has painted. On a device
 * that has seen the server's Google client id, its place is held meanwhile (its label, unseen): the form
 * is not pushed down under a finger about to tap it.
 */
export function GoogleButton(props: { label: string; onToken: (token: string) => void }) {
  const held = readStorage(GOOGLE_CLIENT_KEY) && (
    <div className="google-block" aria-hidden="true" style={{ visibility: 'hidden' }}>
      <button type="button" className="btn btn-google">
        <svg width="18" height="18" />
        {props.label}
      </button>
      <p className="divider">{'\u00a0'}</p>
    </div>
  );
  return (
    <Suspense fallback={held || null}>
      <GoogleButtonImpl {...props} />
    </Suspense>
  );
}
