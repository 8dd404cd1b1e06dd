/**
 * wouter imports `use-sync-external-store/shim` for React < 18; React 19 has the hook built in.
 * vite.config.ts points the shim here, so the landing page does not carry the fallback.
 */
export { useSyncExternalStore } from 'react';
