import type { PublicEvent } from '../../../shared/schemas/events';
import { ConfirmSheet } from '../../components/Sheet';
import { useT, useTi } from '../../lib/i18n';

/**
 * One event at a time: joining another one takes the user out of the one they are at (whose door
 * may want a scan to get back in), so it is said, and confirmed, first; the confirming button names
 * the event it goes to (`target`).
 */
export function SwitchEventSheet({
  current,
  target,
  busy,
  onConfirm,
  onClose,
}: {
  current: Pick<PublicEvent, 'name'>;
  target: Pick<PublicEvent, 'name'>;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const t = useT();
  const ti = useTi();
  return (
    <ConfirmSheet
      title={ti('events.switch.title', { name: current.name })}
      confirmLabel={ti('events.switch.confirm', { name: target.name })}
      cancelLabel={t('events.switch.stay')}
      tone="primary"
      busy={busy}
      error={null}
      onConfirm={onConfirm}
      onClose={onClose}
    >
      <p>{ti('events.switch.body', { name: current.name })}</p>
    </ConfirmSheet>
  );
}
