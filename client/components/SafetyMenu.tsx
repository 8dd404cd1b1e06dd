import { lazy, Suspense, useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { useT } from '../lib/i18n';
import { MoreIcon } from './AppIcons';
import { Menu, type MenuItem } from './Menu';
import type { SafetyAction, SafetyTarget } from './SafetyDialog';

const load = () => import('./SafetyDialog');
/**
 * The dialogs, apart from the screens that offer them, fetched as one of those shows
 * (`fetchSafetyDialog`): with no network by the time Report or Block is tapped (a crowded party), and
 * no service worker that stored them, the sheet still opens, and says in it that the phone is offline.
 */
export const SafetyDialog = lazy(() => load().then((module) => ({ default: module.SafetyDialog })));
export const fetchSafetyDialog = () => void load().catch(() => {});

/**
 * The ⋮ menu of a chat header (Report, Block, Unmatch) or of someone's profile (Report, Block). Once
 * an action is done the user lands on `leaveTo`; the dialog has said what happened in a toast.
 */
export function SafetyMenu({ person, conversationId, leaveTo }: SafetyTarget & { leaveTo: string }) {
  const t = useT();
  const [, navigate] = useLocation();
  const [action, setAction] = useState<SafetyAction | null>(null);
  useEffect(fetchSafetyDialog, []);

  const items: MenuItem[] = [
    { key: 'report', label: t('safety.report'), onSelect: () => setAction('report'), danger: true },
    { key: 'block', label: t('safety.block'), onSelect: () => setAction('block'), danger: true },
  ];
  if (conversationId !== undefined) items.push({ key: 'unmatch', label: t('safety.unmatch'), onSelect: () => setAction('unmatch') });

  return (
    <>
      <Menu label={t('safety.menu')} button={<MoreIcon />} items={items} className="safety-menu" />
      {action && (
        <Suspense fallback={null}>
          <SafetyDialog
            action={action}
            person={person}
            conversationId={conversationId}
            onClose={() => setAction(null)}
            // There, the page's heading takes the focus (AppShell), as after any change of page.
            onDone={() => navigate(leaveTo, { replace: true })}
          />
        </Suspense>
      )}
    </>
  );
}
