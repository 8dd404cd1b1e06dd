import { type ReactNode, type RefObject, useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useT } from '../lib/i18n';
import { sendMatchSeen, useConnection, useDeviceOnline } from '../lib/socket';
import { usePageVisible } from '../lib/when-visible';
import { unreadTotal, useConversations } from '../stores/conversations';
import { useSession } from '../stores/session';
import { AccountControls } from './AccountControls';
import { ChatIcon, HeartIcon } from './Icons';
import { CalendarIcon, HomeIcon, UserIcon } from './AppIcons';
import { MatchOverlay } from './MatchOverlay';
import { VerifyEmailBanner } from './VerifyEmailBanner';

const NAV = [
  { href: '/app/home', prefixes: ['/app/home'], label: 'app.nav.home', icon: HomeIcon },
  { href: '/app/events', prefixes: ['/app/events'], label: 'app.nav.events', icon: CalendarIcon },
  { href: '/app/matches', prefixes: ['/app/matches', '/app/chat', '/app/likes'], label: 'app.nav.chats', icon: ChatIcon },
  { href: '/app/profile', prefixes: ['/app/profile'], label: 'app.nav.profile', icon: UserIcon },
] as const;

/** Active by path prefix; /app/profiles/{id} is someone else's profile, not "Profile". */
export function isNavActive(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix.replace(/\/$/, '')}/`)) && !path.startsWith('/app/profiles');
}

/**
 * The tab's title names the page on screen, then its section, as the bottom nav does ("Ana · Chats ·
 * Eventmatch": what a screen reader reads first, and what the tab and history list show), and wears the
 * unread count, as messaging apps' do; the installed app's icon shows the count too (where the browser
 * has the Badging API). Both are put back when the shell goes (sign-out).
 */
function useTitle(brand: string, page: string, count: number) {
  useEffect(() => {
    document.title = `${count > 0 ? `(${count > 99 ? '99+' : count}) ` : ''}${page ? `${page} · ` : ''}${brand}`;
    return () => void (document.title = brand);
  }, [brand, page, count]);
  useEffect(() => {
    if (count === 0) return;
    navigator.setAppBadge?.(count).catch(() => {});
    return () => void navigator.clearAppBadge?.().catch(() => {});
  }, [count]);
}

/**
 * The page's heading as it stands (a chat's partner, a report's reason: what the page loaded). After a
 * navigation in the app, not on the first load, it takes the focus once it shows, so that the keyboard
 * and the screen reader go on from the new page's top, not from <body> where the page that went left
 * them; unless something takes the focus first (the page itself, the user).
 */
function usePageHeading(shell: RefObject<HTMLElement | null>, location: string) {
  const [heading, setHeading] = useState<string>();
  const navigated = useRef(false);
  useEffect(() => {
    let pending = navigated.current;
    navigated.current = true;
    const stop = () => void (pending = false);
    const look = () => {
      const h1 = shell.current?.querySelector<HTMLElement>('main h1');
      setHeading(h1?.textContent ?? undefined);
      if (!pending || !h1 || document.activeElement !== document.body) return;
      h1.tabIndex = -1;
      // Where the page would be on its first load: App has scrolled it to the top.
      h1.focus({ preventScroll: true });
    };
    look();
    // Watched from the shell: a lazy page shows its heading later, and the overlay going from over
    // the new page is what leaves the focus on <body>.
    const observer = new MutationObserver(look);
    observer.observe(shell.current!, { childList: true, subtree: true, characterData: true });
    document.addEventListener('focusin', stop);
    return () => {
      observer.disconnect();
      document.removeEventListener('focusin', stop);
    };
  }, [shell, location]);
  return heading;
}

export function AppShell({ children }: { children: ReactNode }) {
  const t = useT();
  const [location] = useLocation();
  const user = useSession((state) => state.user);
  const offline = useConnection((state) => state.lost);
  const tooMany = useConnection((state) => state.tooMany);
  const blocked = useConnection((state) => state.blocked);
  const deviceOnline = useDeviceOnline();
  // Messages that came while the user was elsewhere wear a count on Chats, whatever the screen: the
  // conversations are loaded with the app, and each message:new keeps the count.
  const profileCompleted = Boolean(user?.is_profile_completed);
  useEffect(() => {
    if (profileCompleted && useConversations.getState().started === null) void useConversations.getState().load();
  }, [user?.id, profileCompleted]);
  // The chat on screen counts too until it is read: its reader up in the history has not seen what
  // came below, and one at its newest reads each message as it comes.
  const unread = useConversations(unreadTotal);
  const inView = usePageVisible();
  // The chat in view: a new match's chat open there is seen (below).
  const chatInView = inView ? /^\/app\/chat\/(\d+)/.exec(location)?.[1] : undefined;
  const section = NAV.find((item) => isNavActive(location, item.prefixes));
  const sectionName = section && t(section.label);
  const shell = useRef<HTMLDivElement>(null);
  const heading = usePageHeading(shell, location);
  // The page's own name unless it is the section's (the deck's "Home").
  useTitle(t('brand.name'), [heading !== sectionName && heading, sectionName].filter(Boolean).join(' · '), unread);
  const newMatches = useConversations((state) => state.newMatches);
  const newMatch = newMatches.length > 0;
  // Seen: the matches list, or the new match's chat (its overlay's "Send a message"), in view: a phone
  // left on them in a pocket sees nothing, and would take the dot and the overlay from the one in hand.
  const onList = inView && /^\/app\/matches\b/.test(location);
  useEffect(() => {
    const seen = onList ? newMatches : newMatches.filter((id) => String(id) === chatInView);
    if (seen.length === 0) return;
    sendMatchSeen(seen, 'chats');
    useConversations.setState((state) => ({ newMatches: state.newMatches.filter((id) => !seen.includes(id)) }));
  }, [newMatches, onList, chatInView]);

  return (
    <div ref={shell} className="app-shell">
      <header className="top-bar">
        <Link href="/app/home" className="logo logo-small">
          <HeartIcon className="logo-mark" />
          <span className="sr-only">{t('brand.name')}</span>
        </Link>
        <AccountControls />
      </header>
      <VerifyEmailBanner />
      {(offline || tooMany) && (
        <p className="offline-banner" role="status">
          {t(tooMany ? 'app.tooManyTabs' : blocked ? 'app.socketBlocked' : deviceOnline ? 'app.offline' : 'app.noNetwork')}
        </p>
      )}
      <main className="app-main">{children}</main>
      <nav className="bottom-nav" aria-label={t('app.nav.label')}>
        {NAV.map((item) => {
          const active = isNavActive(location, item.prefixes);
          const Icon = item.icon;
          const count = item.href === '/app/matches' ? unread : 0;
          // A match made while the user was elsewhere, with no message yet to count: a dot.
          const dot = item.href === '/app/matches' && newMatch && count === 0;
          return (
            <Link key={item.href} href={item.href} className={active ? 'is-active' : ''} aria-current={active ? 'page' : undefined}>
              <span className="nav-icon">
                <Icon />
                {(count > 0 || dot) && (
                  <span className={dot ? 'nav-badge nav-dot' : 'nav-badge'} aria-hidden="true">
                    {count > 99 ? '99+' : count || ''}
                  </span>
                )}
              </span>
              <span>{t(item.label)}</span>
              {(count > 0 || dot) && <span className="sr-only">{dot ? t('matches.newMatch') : t('matches.unread', { count })}</span>}
            </Link>
          );
        })}
      </nav>
      <MatchOverlay />
    </div>
  );
}
