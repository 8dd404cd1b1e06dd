// @vitest-environment jsdom
/**
 * The page's heading in the signed-in app: after a change of page (not on the first load) the keyboard
 * and the screen reader go on from it, not from <body>; and the tab's title names the page.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { type ComponentType, lazy, Suspense } from 'react';
import { Link, Route, Router, Switch } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppShell } from '../../client/components/AppShell';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';
import { useSession } from '../../client/stores/session';
import { es } from '../../shared/i18n/es';
import { currentUser } from '../helpers/current-user';

/** A page as the app's are: its heading, and a link on to the next. */
function Page({ title, next }: { title: string; next?: string }) {
  return (
    <section>
      <h1>{title}</h1>
      {next && <Link href={next}>{`Open ${next}`}</Link>}
    </section>
  );
}

/** Settings, as a lazy page: its heading shows a moment after the address changed. */
const LateSettings = lazy(() => new Promise<{ default: ComponentType }>((resolve) => setTimeout(() => resolve({ default: () => <Page title="Ajustes" /> }), 50)));

function Shell() {
  useMessages(appMessages);
  return (
    <AppShell>
      <Suspense fallback={<p>…</p>}>
        <Switch>
          <Route path="/app/home/">
            <Page key="home" title={es['app.nav.home']} next="/app/chat/4/" />
          </Route>
          <Route path="/app/chat/4/">
            <Page key="chat" title="Marta" next="/app/home/" />
          </Route>
          <Route path="/app/settings/" component={LateSettings} />
        </Switch>
      </Suspense>
    </AppShell>
  );
}

function renderApp(path: string) {
  render(
    <Router hook={memoryLocation({ path }).hook}>
      <Suspense fallback={null}>
        <Shell />
      </Suspense>
    </Router>,
  );
}

/** A link used by keyboard: focused, then followed. */
function follow(link: HTMLElement) {
  link.focus();
  fireEvent.click(link);
}

describe('the page’s heading', () => {
  beforeEach(async () => {
    localStorage.clear();
    await initLanguage();
    useSession.setState({ token: 'token', user: currentUser() });
  });
  afterEach(() => {
    cleanup();
    useSession.setState({ token: null, user: undefined });
  });

  it('takes the focus after a change of page, not on the first load', async () => {
    renderApp('/app/home/');
    const home = await screen.findByRole('heading', { level: 1, name: es['app.nav.home'] });
    expect(document.activeElement).toBe(document.body);
    expect(home.hasAttribute('tabindex')).toBe(false);

    follow(screen.getByRole('link', { name: 'Open /app/chat/4/' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: 'Marta' })));
    follow(screen.getByRole('link', { name: 'Open /app/home/' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: es['app.nav.home'] })));
  });

  it('takes it from the account menu’s link, once the page it leads to shows, rather than the menu’s button', async () => {
    renderApp('/app/home/');
    fireEvent.click(await screen.findByRole('button', { name: `Ana Ruiz, ${es['app.userMenu']}` }));
    const settings = screen.getByRole('menuitem', { name: es['app.settings'] });
    expect(document.activeElement).toBe(settings);
    fireEvent.click(settings);
    const heading = await screen.findByRole('heading', { level: 1, name: 'Ajustes' });
    await waitFor(() => expect(document.activeElement).toBe(heading));
  });

  it('names the page in the tab’s title, before its section unless it is the section’s own', async () => {
    renderApp('/app/home/');
    await waitFor(() => expect(document.title).toBe(`${es['app.nav.home']} · Eventmatch`));
    fireEvent.click(screen.getByRole('link', { name: 'Open /app/chat/4/' }));
    await waitFor(() => expect(document.title).toBe(`Marta · ${es['app.nav.chats']} · Eventmatch`));
    cleanup();

    renderApp('/app/settings/');
    await waitFor(() => expect(document.title).toBe('Ajustes · Eventmatch'));
  });
});
