/**
 * Google sign-in, in the Google button's chunk: Identity Services' token client, loaded as soon as
 * the button shows (`preloadGoogle`) so that a press opens Google's pop-up at once, while the
 * browser still counts it as the person's doing (a pop-up opened seconds after the press is
 * blocked); then Google's user-info and our login with them.
 */
import { http, joinPass, NetworkError } from './api';

interface TokenResponse {
  access_token?: string;
  error?: string;
}
interface TokenClient {
  requestAccessToken: () => void;
}
interface GoogleAccounts {
  oauth2: {
    initTokenClient: (config: {
      client_id: string;
      scope: string;
      callback: (response: TokenResponse) => void;
      error_callback?: (error: { type: string }) => void;
    }) => TokenClient;
  };
}
declare global {
  interface Window {
    google?: { accounts: GoogleAccounts };
  }
}

const SCRIPT_URL = 'https://accounts.google.com/gsi/client';
let loading: Promise<GoogleAccounts> | null = null;

function loadScript(): Promise<GoogleAccounts> {
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
    script.async = true;
    script.onload = () => (window.google ? resolve(window.google.accounts) : reject(new Error('GIS missing')));
    script.onerror = () => {
      loading = null;
      reject(new Error('Could not load Google sign-in'));
    };
    document.head.appendChild(script);
  });
  return loading;
}

/** Starts loading Google's script (the button is showing); a failure is the press's to report. */
export function preloadGoogle(): void {
  if (!window.google) loadScript().catch(() => {});
}

/** The person closed Google's pop-up, or said no there: nothing failed, and there is nothing to say. */
export class GoogleCancelled extends Error {}

/** Resolves with an access token from the Google pop-up, or rejects (`GoogleCancelled`; blocked, offline). */
export async function requestGoogleAccessToken(clientId: string): Promise<string> {
  // Loaded: the pop-up opens within the press itself, with nothing awaited before it.
  const accounts = window.google?.accounts ?? (await loadScript());
  return new Promise((resolve, reject) => {
    const client = accounts.oauth2.initTokenClient({
      client_id: clientId,
      scope: 'openid email profile',
      callback: (response) =>
        response.access_token
          ? resolve(response.access_token)
          : reject(response.error === 'access_denied' ? new GoogleCancelled() : new Error(response.error ?? 'denied')),
      error_callback: (error) => reject(error.type === 'popup_closed' ? new GoogleCancelled() : new Error(error.type)),
    });
    client.requestAccessToken();
  });
}

/** Google's user-info, read with the access token from Google Identity Services. */
export async function googleProfile(accessToken: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch('https://www.googleapis.com/oauth2/v3/userinfo', {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
  } catch (error) {
    throw new NetworkError(0, error instanceof Error ? error.message : 'Network error');
  }
  // Google's refusal, not our server's: nothing of the API's to show (the button says to try again).
  if (!response.ok) throw new Error(`Google user-info failed: HTTP ${response.status}`);
  return response.json();
}

/** Signs in (or up) with Google's access token and the user-info read with it; the scan's pass goes along. */
export const googleLogin = (accessToken: string, profile: unknown) =>
  http.post<{ token: string }>('/api/auth/google/login/', { access_token: accessToken, profile, pass: joinPass() });
