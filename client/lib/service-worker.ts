/**
 * The service worker (client/sw/sw.ts) stores the build so that the app opens with no network. It is
 * registered by the signed-in app, once the page has loaded: a visitor who only reads the landing page
 * never downloads the whole build, and storing it never competes with a first paint.
 */
export function registerServiceWorker() {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register('/sw.js').catch((error: unknown) => console.warn('The service worker was not registered', error));
  };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}
