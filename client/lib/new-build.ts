import { serverAnswers } from './api';

/** When the page last reloaded itself for a missing script (session storage): once, not in a loop. */
const RELOADED_KEY = 'reloaded_for_new_build_at';
const RELOAD_AGAIN_AFTER_MS = 30_000;
/**
 * While the server does not answer, it is asked again this often: a phone that stayed online through
 * a restart of the server (a new version going out) hears no `online` event to try again by.
 */
const ASK_AGAIN_MS = 5000;

/**
 * Reloads the page, once: a new version went out while this page was open, and the old one's scripts
 * are no longer on the server. With no network a reload would only show the browser's own error.
 */
function reloadForNewBuild(): boolean {
  if (!navigator.onLine) return false;
  try {
    const last = Number(window.sessionStorage.getItem(RELOADED_KEY));
    if (Date.now() - last < RELOAD_AGAIN_AFTER_MS) return false;
    window.sessionStorage.setItem(RELOADED_KEY, String(Date.now()));
  } catch {
    // No session storage (private mode): reloading could loop, so the caller offers it instead.
    return false;
  }
  window.location.reload();
  return true;
}

/**
 * For a script of the build that did not load (a page's, the host screen's chart, a language's copy):
 * asks the server (`/healthz`), and again when the phone is back online and every ASK_AGAIN_MS while
 * it does not answer; once it answers, a new build replaced the old scripts, and the page reloads
 * once into it. `heard` is told each answer that did not reload: `false` while the server does not
 * answer, `true` when it did but the page had reloaded for a new build a moment ago. `check` asks at
 * once (a Try again), `stop` stops asking.
 */
export function reloadWhenServerAnswers(heard?: (answered: boolean) => void) {
  let stopped = false;
  let askAgain: ReturnType<typeof setTimeout> | undefined;
  const check = async () => {
    const answers = await serverAnswers();
    if (stopped) return;
    // Reloading: what is on screen stays until the page goes.
    if (answers && reloadForNewBuild()) return;
    heard?.(answers);
    if (answers) return;
    window.addEventListener('online', check);
    // One timer however many checks overlap (a tap on Try again while one is on its way).
    clearTimeout(askAgain);
    askAgain = setTimeout(check, ASK_AGAIN_MS);
  };
  const stop = () => {
    stopped = true;
    window.removeEventListener('online', check);
    clearTimeout(askAgain);
  };
  void check();
  return { check, stop };
}
