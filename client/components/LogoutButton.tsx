import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useT } from '../lib/i18n';
import { unsentMessages, useChat } from '../stores/chat';
import { LogoutIcon } from './AppIcons';
import { ConfirmSheet } from './Sheet';

/**
 * The top bar's Logout. Signing out clears the device, its outbox with it: while messages of mine are
 * still on their way, it asks first (staying signed in, they go by themselves once back online).
 */
export function LogoutButton() {
  const t = useT();
  const [, navigate] = useLocation();
  const unsent = useChat((state) => unsentMessages(state.threads));
  const [asking, setAsking] = useState(false);
  return (
    <>
      <Link
        href="/logout/"
        className="icon-btn"
        aria-label={t('app.logout')}
        title={t('app.logout')}
        onClick={(event) => {
          if (unsent === 0) return;
          event.preventDefault();
          setAsking(true);
        }}
      >
        <LogoutIcon />
      </Link>
      {asking && (
        <ConfirmSheet
          title={t('app.logoutUnsent.title')}
          confirmLabel={t('app.logoutUnsent.confirm')}
          cancelLabel={t('app.logoutUnsent.stay')}
          busy={false}
          error={null}
          onConfirm={() => navigate('/logout/')}
          onClose={() => setAsking(false)}
        >
          <p>{t('app.logoutUnsent.text')}</p>
        </ConfirmSheet>
      )}
    </>
  );
}
