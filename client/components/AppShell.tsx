import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useT } from '../lib/i18n';
import { useConnection } from '../lib/socket';
import { displayName, useSession } from '../stores/session';
import { Avatar } from './Avatar';
import { ChatIcon, ChevronRight, HeartIcon, HomeIcon, LogoutIcon, UserIcon } from './Icons';
import { LanguageSwitcher } from './LanguageSwitcher';
import { MatchOverlay } from './MatchOverlay';
import { VerifyEmailBanner } from './VerifyEmailBanner';

const NAV = [
  { href: '/app/home', prefixes: ['/app/home'], label: 'app.nav.home', icon: HomeIcon },
  { href: '/app/matches', prefixes: ['/app/matches', '/app/chat'], label: 'app.nav.chats', icon: ChatIcon },
  { href: '/app/profile', prefixes: ['/app/profile'], label: 'app.nav.profile', icon: UserIcon },
] as const;

/** Active by path prefix; /app/profiles/{id} is someone else's profile, not "Profile". */
export function isNavActive(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix.replace(/\/$/, '')}/`)) && !path.startsWith('/app/profiles');
}

export function AppShell({ children }: { children: ReactNode }) {
  const t = useT();
  const [location] = useLocation();
  const user = useSession((state) => state.user);
  const offline = useConnection((state) => state.everConnected && !state.connected);
  const name = user ? displayName(user) : '';

  return (
    <div className="app-shell">
      <header className="top-bar">
        <Link href="/app/home" className="logo logo-small">
          <HeartIcon className="logo-mark" />
          <span className="sr-only">{t('brand.name')}</span>
        </Link>
        <Link href="/app/settings/" className="top-user" aria-label={`${t('app.settings')}: ${name}`} title={t('app.settings')}>
          {user && <Avatar name={name} image={user.image} size={32} />}
          <span className="top-user-name">{name}</span>
          <ChevronRight className="top-user-settings" />
        </Link>
        <LanguageSwitcher compact />
        <Link href="/logout/" className="icon-btn" aria-label={t('app.logout')} title={t('app.logout')}>
          <LogoutIcon />
        </Link>
      </header>
      <VerifyEmailBanner />
      {offline && (
        <p className="offline-banner" role="status">
          {t('app.offline')}
        </p>
      )}
      <main className="app-main">{children}</main>
      <nav className="bottom-nav" aria-label={t('app.nav.label')}>
        {NAV.map((item) => {
          const active = isNavActive(location, item.prefixes);
          const Icon = item.icon;
          return (
            <Link key={item.href} href={item.href} className={active ? 'is-active' : ''} aria-current={active ? 'page' : undefined}>
              <Icon />
              <span>{t(item.label)}</span>
            </Link>
          );
        })}
      </nav>
      <MatchOverlay />
    </div>
  );
}
