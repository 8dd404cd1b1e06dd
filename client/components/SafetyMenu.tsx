import { lazy, Suspense, useState } from 'react';
import { useLocation } from 'wouter';
import { useT } from '../lib/i18n';
import { MoreIcon } from './AppIcons';
import { Menu, type MenuItem } from './Menu';
import type { SafetyAction, SafetyTarget } from './SafetyDialog';

/** The dialogs, loaded on first use, apart from the screens that offer them. */
export const SafetyDialog = lazy(() => import('./SafetyDialog').then((module) => ({ default: module.SafetyDialog })));

/**
 * The ⋮ menu of a chat header (Report, Block, Unmatch) or of someone's profile (Report, Block). Once
 * an action is done the user lands on `leaveTo`; the dialog has said what happened in a toast.
 */
export function SafetyMenu({ person, conversationId, leaveTo }: SafetyTarget & { leaveTo: string }) {
  const t = useT();
  const [, navigate] = useLocation();
  const [action, setAction] = useState<SafetyAction | null>(null);

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
