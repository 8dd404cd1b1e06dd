import { lazy, Suspense } from 'react';

const GoogleButtonImpl = lazy(() => import('./GoogleButton').then((module) => ({ default: module.GoogleButton })));

/** The Google button's code (and its GET /api/config/) loads after the form has painted. */
export function GoogleButton(props: { label: string; onToken: (token: string) => void }) {
  return (
    <Suspense fallback={null}>
      <GoogleButtonImpl {...props} />
    </Suspense>
  );
}
