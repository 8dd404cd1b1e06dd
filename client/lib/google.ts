/** Google Identity Services' token client, loaded only when someone presses the Google button. */
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
    if (window.google) return resolve(window.google.accounts);
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

/** Resolves with an access token from the Google pop-up, or rejects (closed, denied, offline). */
export async function requestGoogleAccessToken(clientId: string): Promise<string> {
  const accounts = await loadScript();
  return new Promise((resolve, reject) => {
    const client = accounts.oauth2.initTokenClient({
      client_id: clientId,
      scope: 'openid email profile',
      callback: (response) => (response.access_token ? resolve(response.access_token) : reject(new Error(response.error ?? 'denied'))),
      error_callback: (error) => reject(new Error(error.type)),
    });
    client.requestAccessToken();
  });
}
