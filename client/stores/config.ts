import { create } from 'zustand';
import type { ClientConfig } from '../../shared/schemas/client-config';
import { http, logFailure } from '../lib/api';

interface ConfigState {
  /** null until GET /api/config/ answers (or if it fails: then no Google button, default lookup keys). */
  config: ClientConfig | null;
  load: () => Promise<ClientConfig | null>;
}

let loading: Promise<ClientConfig | null> | null = null;

/** How this server is set up: Google sign-in, test or Stripe checkout, the lookup keys. Fetched once. */
export const useConfig = create<ConfigState>()((set) => ({
  config: null,
  load() {
    loading ??= http
      .get<ClientConfig>('/api/config/')
      .then((config) => {
        set({ config });
        return config;
      })
      .catch((error: unknown) => {
        logFailure('Could not load the client config', error);
        loading = null;
        return null;
      });
    return loading;
  },
}));
