import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useT } from '../lib/i18n';
import { unsentMessages, useChat } from '../stores/chat';
import { displayName, useSession } from '../stores/session';
import { LogoutIcon } from './AppIcons';
import { Avatar } from './Avatar';
import { LanguageSwitcher } from './LanguageSwitcher';
import { Menu, type MenuItem } from './Menu';
import { ConfirmSheet } from './Sheet';

/**
 * The top bar's right side: the avatar menu (the user's name, Settings, Your plan, Blocked people, the
 * moderator's pages, Logout), the language and a Logout button. The button sits beside the language
 * switch, where a tap at a party can miss: it asks first, as coming back means signing in again. The
 * menu's Logout, two deliberate taps away, goes at once. Signing out clears the device, its outbox with
 * it: while messages of mine are still on their way, either Logout asks first, and says so (staying
 * signed in, they go by themselves once back online).
 */
export function AccountControls() {
  const t = useT();
  const [, navigate] = useLocation();
  const user = useSession((state) => state.user);
  const unsent = useChat((state) => unsentMessages(state.threads));
  /** Which question Logout asks: whether to go, or whether to go with messages not sent. */
  const [asking, setAsking] = useState<'logout' | 'unsent' | null>(null);
  const name = user ? displayName(user) : '';

  const items: MenuItem[] = [
    { key: 'settings', label: t('app.settings'), href: '/app/settings/' },
    // Where the plan is seen and managed (cancelled) once paid for; the plans, for someone without one.
    { key: 'plan', label: t('subscribe.current.title'), href: '/app/subscribe/' },
    { key: 'blocked', label: t('blocked.title'), href: '/app/settings/blocked/' },
  ];
  if (user?.is_moderator) {
    items.push({ key: 'moderation', label: t('app.moderation'), href: '/app/moderation/' });
    items.push({ key: 'activity', label: t('app.activity'), href: '/app/admin/' });
  }
  items.push({ key: 'logout', label: t('app.logout'), onSelect: () => (unsent === 0 ? navigate('/logout/') : setAsking('unsent')) });

  return (
    <>
      <Menu
        label={name ? `${name}, ${t('app.userMenu')}` : t('app.userMenu')}
        className="top-user"
        buttonClassName="top-user-btn"
        items={items}
        button={
          <>
            {user && <Avatar name={name} image={user.image} size={32} />}
            <span className="top-user-name">
              <bdi>{name}</bdi>
            </span>
          </>
        }
      />
      <LanguageSwitcher compact />
      <Link
        href="/logout/"
        className="icon-btn"
        aria-label={t('app.logout')}
        title={t('app.logout')}
        onClick={(event) => {
          event.preventDefault();
          setAsking(unsent === 0 ? 'logout' : 'unsent');
        }}
      >
        <LogoutIcon />
      </Link>
      {asking && (
        <ConfirmSheet
          title={t(asking === 'unsent' ? 'app.logoutUnsent.title' : 'app.logoutAsk.title')}
          confirmLabel={t(asking === 'unsent' ? 'app.logoutUnsent.confirm' : 'app.logoutAsk.confirm')}
          cancelLabel={t('app.logoutUnsent.stay')}
          busy={false}
          error={null}
          onConfirm={() => navigate('/logout/')}
          onClose={() => setAsking(null)}
        >
          {asking === 'unsent' && <p>{t('app.logoutUnsent.text')}</p>}
        </ConfirmSheet>
      )}
    </>
  );
}
