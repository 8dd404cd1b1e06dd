import { vi } from 'vitest';

/** What a browser's fetch does with no network: it rejects with this TypeError (Chromium's message). */
export const noNetwork = () => Promise.reject(new TypeError('Failed to fetch'));

/** Every fetch of this test fails as it does on a phone with no network. */
export const stubFetchOffline = () => vi.stubGlobal('fetch', vi.fn(noNetwork));
