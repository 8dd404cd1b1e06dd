import { type FormEvent, useEffect, useId, useState } from 'react';
import { toast } from '../lib/toast';
import { REPORT_DETAILS_MAX_LENGTH, REPORT_REASONS } from '../../shared/constants';
import type { ReportReason } from '../../shared/schemas/safety';
import { Throttled, ValidationError } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { formatCount } from '../lib/format';
import { type Translate, useLanguage, useMessages, useT, useTi } from '../lib/i18n';
import { type Outcome, useSafety } from '../stores/safety';
import { ConfirmSheet, Sheet, SheetActions } from './Sheet';
import { safetyMessages } from '../lib/messages-safety';
import { fitPaste, maxUnits, textLength } from '../../shared/text-length';
import { hasVisibleText } from '../../shared/visible-text';

export type SafetyAction = 'block' | 'unmatch' | 'report';

export interface SafetyTarget {
  person: { id: number; name: string };
  /** Set in a chat: the conversation that ends with the action. */
  conversationId?: number;
}

interface Props extends SafetyTarget {
  action: SafetyAction;
  /** The chat with them has ended already (a report from the ended chats): nothing is left to remove. */
  chatEnded?: boolean;
  /** Blocked by the user already (a report from the blocked list): the block stays as it is. */
  blocked?: boolean;
  onClose: () => void;
  /** After the action and its toast: the caller leaves the page. */
  onDone: () => void;
}

const DONE = { block: 'safety.block.done', unmatch: 'safety.unmatch.done', report: 'safety.report.done' } as const;

interface Failure {
  form: string | null;
  details: string | null;
  /** No reason picked: said under the reasons. */
  reason?: string;
  /** Out of reports for today. */
  throttled?: boolean;
}
/** Decided by kind and status, never by the server's words: 429 on a report has its own line (a block's says its wait). */
function failure(error: unknown, t: Translate, report: boolean): Failure {
  if (error instanceof Throttled && report) return { form: t('safety.report.throttled'), details: null, throttled: true };
  if (error instanceof ValidationError && error.fields.details?.[0]) return { form: null, details: error.fields.details[0] };
  return { form: errorMessage(error, t), details: null };
}

/**
 * The confirm step of Block, Unmatch and Report: says plainly what happens, then does it. Report picks
 * one of REPORT_REASONS and takes optional details. Loaded on first use, apart from the chat.
 */
export function SafetyDialog({ action, person, conversationId, chatEnded = false, blocked = false, onClose, onDone }: Props) {
  useMessages(safetyMessages);
  const t = useT();
  const ti = useTi();
  const language = useLanguage((state) => state.language);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Failure>({ form: null, details: null });
  // A report begun before, whose sheet went unsent (the chat ended under it), goes on from there.
  const [draft] = useState(() => useSafety.getState().reportDrafts[person.id]);
  const [reason, setReason] = useState<ReportReason | null>(draft?.reason ?? null);
  const [details, setDetails] = useState(draft?.details ?? '');
  useEffect(() => {
    if (action !== 'report') return;
    useSafety.setState(({ reportDrafts: { [person.id]: _before, ...others } }) => ({
      reportDrafts: reason || details ? { ...others, [person.id]: { reason, details } } : others,
    }));
  }, [action, person.id, reason, details]);

  async function run(request: () => Promise<Outcome>, done: SafetyAction = action) {
    setBusy(true);
    // Out of reports, "Block … now" stays a plain button while it blocks (were it the form's submit again
    // as its own tap ends, that tap would send the report too), and after a block that failed.
    setError({ ...error, form: null, details: null });
    try {
      const outcome = await request();
      if (outcome === 'gone') toast.info(t('safety.gone'));
      else toast.success(ti(blocked && done === 'report' ? 'safety.report.sent' : DONE[done], { name: person.name }));
      onDone();
    } catch (caught) {
      setError({ ...error, ...failure(caught, t, done === 'report') });
      setBusy(false);
    }
  }

  const block = () => run(() => useSafety.getState().block(person.id, conversationId), 'block');
  const blockInstead = error.throttled && !blocked;
  function confirm() {
    const safety = useSafety.getState();
    if (action === 'block') void block();
    else if (action === 'unmatch' && conversationId !== undefined) void run(() => safety.unmatch(conversationId, person.id));
  }

  function submitReport(event: FormEvent) {
    event.preventDefault();
    if (!reason) {
      setError({ form: null, details: null, reason: t('safety.report.pickReason') });
      // The reasons may be scrolled away above, on a small phone: taken there, to the first.
      event.currentTarget.querySelector<HTMLInputElement>('input[name="reason"]')?.focus();
      return;
    }
    // Optional: left out when nothing in it shows (spaces, a zero-width character), as the server counts it.
    const text = details.trim();
    void run(() =>
      useSafety.getState().report({ user_id: person.id, reason, conversation_id: conversationId, ...(hasVisibleText(text) ? { details: text } : {}) }),
    );
  }

  if (action !== 'report') {
    const name = { name: person.name };
    return (
      <ConfirmSheet
        title={ti(action === 'block' ? 'safety.block.title' : 'safety.unmatch.title', name)}
        confirmLabel={t(action === 'block' ? 'safety.block.confirm' : 'safety.unmatch.confirm')}
        busy={busy}
        error={error.form}
        onConfirm={confirm}
        onClose={onClose}
      >
        {action === 'block' ? (
          <>
            <p>{t(conversationId === undefined ? 'safety.block.textProfile' : 'safety.block.text')}</p>
            <p className="muted">{t('safety.block.undo')}</p>
          </>
        ) : (
          <p>{t('safety.unmatch.text')}</p>
        )}
      </ConfirmSheet>
    );
  }

  return (
    <Sheet labelledBy={titleId} onClose={onClose} busy={busy}>
      <form className="form report-form" onSubmit={submitReport} noValidate>
        <h2 id={titleId}>{ti('safety.report.title', { name: person.name })}</h2>
        <fieldset className="field">
          <legend>{t('safety.report.reason')}</legend>
          <div className="reasons">
            {REPORT_REASONS.map((value, index) => (
              <label key={value} className="check reason">
                <input
                  type="radio"
                  name="reason"
                  value={value}
                  checked={reason === value}
                  aria-invalid={error.reason ? true : undefined}
                  aria-describedby={error.reason ? `${titleId}-reason-error` : undefined}
                  onChange={() => {
                    setReason(value);
                    setError({ form: null, details: null });
                  }}
                  data-autofocus={index === 0 ? true : undefined}
                />
                {t(`safety.reason.${value}`)}
              </label>
            ))}
          </div>
          {error.reason && (
            <small id={`${titleId}-reason-error`} className="field-error" role="alert">
              {error.reason}
            </small>
          )}
        </fieldset>
        <div className="field">
          <label htmlFor={`${titleId}-details`}>{t('safety.report.details')}</label>
          <textarea
            id={`${titleId}-details`}
            dir="auto"
            value={details}
            rows={3}
            maxLength={maxUnits(details, REPORT_DETAILS_MAX_LENGTH)}
            onPaste={fitPaste}
            onChange={(event) => setDetails(event.target.value)}
            aria-invalid={error.details ? true : undefined}
            aria-describedby={error.details ? `${titleId}-count ${titleId}-details-error` : `${titleId}-count`}
          />
          <small id={`${titleId}-count`} className="help">
            {t('safety.report.count', { count: formatCount(textLength(details), language), max: formatCount(REPORT_DETAILS_MAX_LENGTH, language) })}
          </small>
          {error.details && (
            <small id={`${titleId}-details-error`} className="field-error" role="alert">
              {error.details}
            </small>
          )}
        </div>
        <p className="muted report-note">
          {ti('safety.report.private', { name: person.name })}{' '}
          {ti(
            blocked
              ? 'safety.report.staysBlocked'
              : chatEnded
                ? 'safety.report.blocksEnded'
                : conversationId === undefined
                  ? 'safety.report.blocksProfile'
                  : 'safety.report.blocks',
            { name: person.name },
          )}
        </p>
        {error.form && (
          <p className="form-error" role="alert">
            {error.form}
          </p>
        )}
        {/* Out of reports for today: a report's block is still what keeps the user safe now, and it takes
            the place of the send that cannot go through. */}
        <SheetActions
          confirmLabel={blockInstead ? ti('safety.report.blockInstead', { name: person.name }) : t('safety.report.send')}
          onConfirm={blockInstead ? () => void block() : undefined}
          busy={busy}
          onClose={onClose}
          cancelFirst={false}
        />
      </form>
    </Sheet>
  );
}
