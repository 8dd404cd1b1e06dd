import { useEffect, useState } from 'react';
import { toast } from '../../../lib/toast';
import { Link, useLocation } from 'wouter';
import { GENDERS, REPORT_DETAILS_MAX_LENGTH } from '../../../../shared/constants';
import { fitPaste, maxUnits } from '../../../../shared/text-length';
import type { ModerationReportDetail, ResolveInput, SnapshotSender } from '../../../../shared/schemas/safety';
import { ChevronLeft } from '../../../components/AppIcons';
import { Loading } from '../../../components/Loading';
import { ConfirmSheet } from '../../../components/Sheet';
import { TryAgain } from '../../../components/Waiting';
import { ApiError, NotFound } from '../../../lib/api';
import { moderationApi } from '../../../lib/api-moderation';
import { errorMessage } from '../../../lib/errors';
import { formatAge, formatDateTime } from '../../../lib/format';
import { useLanguage, useT, useTi } from '../../../lib/i18n';
import { useServerMinutes } from '../../../lib/server-clock';
import { refreshWhenVisible } from '../../../lib/when-visible';
import { useModeration } from '../../../stores/moderation';
import { BusyButton } from '../../../components/BusyButton';

/**
 * A report's photo copies need the Authorization header, which an <img> cannot send: each is fetched
 * as a blob and shown through an object URL, released when the page goes. undefined: loading;
 * null: could not be loaded.
 */
function useReportPhotos(urls: readonly string[]): Array<string | null | undefined> {
  const key = urls.join('\n');
  const [images, setImages] = useState<Array<string | null | undefined>>([]);
  useEffect(() => {
    const list = key ? key.split('\n') : [];
    let live = true;
    const made: string[] = [];
    const put = (index: number, value: string | null) => setImages((current) => current.map((item, at) => (at === index ? value : item)));
    setImages(list.map(() => undefined));
    list.forEach((url, index) => {
      moderationApi
        .photo(url)
        .then((blob) => {
          if (!live) return;
          const objectUrl = URL.createObjectURL(blob);
          made.push(objectUrl);
          put(index, objectUrl);
        })
        .catch(() => live && put(index, null));
    });
    return () => {
      live = false;
      made.forEach((objectUrl) => URL.revokeObjectURL(objectUrl));
    };
  }, [key]);
  return images;
}

const isGender = (value: string | null): value is (typeof GENDERS)[number] => (GENDERS as readonly (string | null)[]).includes(value);

function Snapshot({ report }: { report: ModerationReportDetail }) {
  const t = useT();
  const language = useLanguage((state) => state.language);
  const { profile, messages } = report.snapshot;
  const photos = useReportPhotos(profile?.photos ?? []);
  // The photo shown the snapshot's whole width: a fake or explicit one is judged at more than a thumbnail's size.
  const [large, setLarge] = useState<number | null>(null);
  const who = (from: SnapshotSender | null) => (from === 'reporter' ? t('moderation.reporter') : from === 'reported' ? t('moderation.reported') : '—');

  return (
    <div className="report-snapshot">
      <h2 className="section-title">{t('moderation.snapshot')}</h2>
      {profile ? (
        <div className="snapshot-profile">
          {photos.length > 0 ? (
            <ul className="snapshot-photos">
              {photos.map((src, index) => (
                <li key={index} className={large === index ? 'is-large' : undefined}>
                  {src ? (
                    <button type="button" className="snapshot-photo" aria-pressed={large === index} onClick={() => setLarge(large === index ? null : index)}>
                      <img src={src} alt={t('moderation.photo', { n: index + 1 })} />
                    </button>
                  ) : (
                    <span className="snapshot-photo-missing" role={src === null ? 'img' : undefined} aria-label={src === null ? t('moderation.photoMissing') : undefined} aria-busy={src === undefined} />
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t('moderation.noPhotos')}</p>
          )}
          <p className="snapshot-name">
            {/* Anyone names themselves: in a <bdi>, an override in the name cannot turn the age after it around. */}
            <bdi>{profile.name}</bdi>
            {profile.age !== null && <span className="age">, {profile.age}</span>}
            {isGender(profile.gender) && <span className="muted"> · {t(`gender.${profile.gender}`)}</span>}
          </p>
          {profile.bio && <p className="bio">{profile.bio}</p>}
        </div>
      ) : (
        <p className="muted">{t('moderation.noProfile')}</p>
      )}

      <h2 className="section-title">{t('moderation.transcript')}</h2>
      {messages.length === 0 ? (
        <p className="muted">{t('moderation.noMessages')}</p>
      ) : (
        <ol className="transcript" aria-label={t('moderation.transcript')}>
          {messages.map((message) => (
            <li key={message.id} className={message.from === 'reported' ? 'transcript-line is-reported' : 'transcript-line'}>
              <p className="transcript-meta">
                <strong>{who(message.from)}</strong> · <time dateTime={message.time}>{formatDateTime(message.time, language)}</time>
              </p>
              <p className="transcript-text">{message.content}</p>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** One report: who, why, the snapshot, and Dismiss / Ban (with a note; each asks first: neither can be undone). */
export function ReportView({ id }: { id: number }) {
  const t = useT();
  const ti = useTi();
  const language = useLanguage((state) => state.language);
  // How long ago it was made, by the server's clock: said again once it is heard.
  useServerMinutes();
  const [, navigate] = useLocation();
  const report = useModeration((state) => (state.report?.id === id ? state.report : null));
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<ResolveInput['action'] | null>(null);
  // Why Ban or Dismiss failed, said in the confirm sheet, which stays for another try (as useSheetAction's).
  const [sheetError, setSheetError] = useState<string | null>(null);

  const load = () => {
    setError(null);
    useModeration
      .getState()
      .open(id)
      .catch((caught: unknown) => {
        if (caught instanceof NotFound) setMissing(true);
        else setError(errorMessage(caught, t));
      });
  };
  // Loaded once per report (the page is keyed by id); t only changes the words of an error. Read again,
  // quietly, when the page comes back into view: another moderator may have decided it meanwhile.
  useEffect(() => {
    load();
    return refreshWhenVisible(() => void useModeration.getState().open(id).catch(() => undefined));
  }, [id]);

  // Decided by a colleague while the confirm sheet was open (read again on coming back into view): the
  // sheet goes, as confirming could only meet a 409, and the page says why. Not after our own decision
  // (busy until the page is left). Set while rendering, not in an effect: the decision and the sheet
  // still open over it are never shown together (an effect's update is a render of its own, later).
  const decided = report !== null && report.status !== 'open';
  const [wasDecided, setWasDecided] = useState(decided);
  if (decided !== wasDecided) {
    setWasDecided(decided);
    if (decided && confirming && !busy) {
      setConfirming(null);
      setError(t('moderation.alreadyResolved'));
    }
  }

  async function resolve(action: ResolveInput['action']) {
    setBusy(true);
    setError(null);
    setSheetError(null);
    const text = note.trim();
    try {
      const done = await useModeration.getState().resolve(id, { action, ...(text ? { note: text } : {}) });
      toast.success(action === 'ban' ? ti('moderation.banned', { name: done.reported.name }) : t('moderation.dismissed'));
      navigate('/app/moderation/');
    } catch (caught) {
      setBusy(false);
      // 409: another moderator got there first, or (a ban) the account was deleted or banned since: the
      // server says which; the report is read again to show what they decided, or that no one is left to ban.
      if (caught instanceof ApiError && caught.status === 409) {
        setConfirming(null);
        setError(errorMessage(caught, t));
        void useModeration.getState().open(id).catch(() => undefined);
      } else {
        setSheetError(errorMessage(caught, t));
      }
    }
  }

  function ask(action: ResolveInput['action']) {
    setSheetError(null);
    setConfirming(action);
  }

  const back = (
    <Link href="/app/moderation/" className="back-link">
      <ChevronLeft /> {t('moderation.back')}
    </Link>
  );
  if (missing) {
    return (
      <section className="page moderation">
        {back}
        <p className="center-text muted">{t('moderation.notFound')}</p>
      </section>
    );
  }
  if (!report) {
    return (
      <section className="page moderation">
        {back}
        {error ? (
          <>
            <p className="form-error" role="alert">
              {error}
            </p>
            <TryAgain onRetry={load} />
          </>
        ) : (
          <Loading />
        )}
      </section>
    );
  }

  const reportedName = report.reported.name || t('moderation.deleted');
  // Renamed since the report: the account is named as it is now, and as the snapshot below shows it then.
  const nameThen = report.snapshot.profile?.name;
  const renamed = report.reported.id !== null && nameThen && nameThen !== report.reported.name ? nameThen : null;
  // Reported after the ban (from a chat it ended): Ban again would do nothing; Dismiss closes the report.
  const alreadyBanned = report.status === 'open' && report.reported.banned;
  return (
    <section className="page moderation report-view">
      {back}
      {/* The case, then the evidence, then the decision: one column on a phone; on a laptop the evidence beside the other two. */}
      <div className="report-case">
        <h1>{t(`safety.reason.${report.reason}`)}</h1>
        <dl className="report-facts">
          <dt>{t('moderation.reported')}</dt>
          <dd>
            {/* An account deleted since: its name is the snapshot's, its reports no longer counted (nor can it be banned). */}
            <bdi>{reportedName}</bdi>{' '}
            {renamed && <span className="muted">({ti('moderation.nameThen', { name: renamed })}) </span>}
            <span className="muted">· {report.reported.id === null ? t('moderation.deleted') : t('moderation.count', { count: report.reported.report_count })}</span>
            {alreadyBanned && <span className="banned-tag">{t('moderation.alreadyBanned')}</span>}
          </dd>
          <dt>{t('moderation.reporter')}</dt>
          <dd>{report.reporter?.name || t('moderation.deleted')}</dd>
        </dl>
        <p className="muted">
          <time dateTime={report.created_at}>{t('moderation.when', { date: formatDateTime(report.created_at, language) })}</time> ({formatAge(report.created_at, language)})
        </p>

        <h2 className="section-title">{t('moderation.details')}</h2>
        <p className={report.details ? 'report-details' : 'muted'}>{report.details || t('moderation.noDetails')}</p>
        {report.additions.length > 0 && (
          <>
            <h2 className="section-title">{t('moderation.additions')}</h2>
            <ul className="additions">
              {report.additions.map((addition) => (
                <li key={addition.at}>
                  <strong>{t(`safety.reason.${addition.reason}`)}</strong>{' '}
                  <time className="muted" dateTime={addition.at}>
                    · {formatDateTime(addition.at, language)}
                  </time>
                  {addition.details && <p className="report-details">{addition.details}</p>}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>

      <Snapshot report={report} />

      {report.status === 'open' ? (
        <form className="form resolve-form" onSubmit={(event) => event.preventDefault()}>
          <label className="field">
            <span>{t('moderation.note')}</span>
            <textarea value={note} rows={2} maxLength={maxUnits(note, REPORT_DETAILS_MAX_LENGTH)} onPaste={fitPaste} onChange={(event) => setNote(event.target.value)} />
          </label>
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          {alreadyBanned && <p className="notice">{ti('moderation.alreadyBannedText', { name: reportedName })}</p>}
          <div className={alreadyBanned ? 'resolve-actions is-single' : 'resolve-actions'}>
            <BusyButton type="button" className="btn btn-ghost-muted" busy={busy} onClick={() => ask('dismiss')}>
              {t('moderation.dismiss')}
            </BusyButton>
            {!alreadyBanned && (
              <BusyButton type="button" className="btn btn-danger" busy={busy} disabled={report.reported.id === null} onClick={() => ask('ban')}>
                {t('moderation.ban')}
              </BusyButton>
            )}
          </div>
        </form>
      ) : (
        <div className="notice resolution">
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <p>
            <strong>{t('moderation.resolution')}:</strong>{' '}
            {report.resolution ? t(report.resolution === 'ban' ? 'moderation.resolution.ban' : 'moderation.resolution.dismiss') : '—'}
            {report.resolved_at && (
              <span className="muted">
                {' · '}
                {report.resolved_by
                  ? ti('moderation.resolvedBy', { date: formatDateTime(report.resolved_at, language), name: report.resolved_by.name })
                  : t('moderation.resolvedAt', { date: formatDateTime(report.resolved_at, language) })}
              </span>
            )}
          </p>
          {/* Decided with a ban the admin command lifted since: the account is in use again. */}
          {report.resolution === 'ban' && report.reported.id !== null && !report.reported.banned && <p>{t('moderation.banLifted')}</p>}
          {report.resolved_with !== null && (
            <p>
              <Link href={`/app/moderation/reports/${report.resolved_with}/`}>{t('moderation.resolvedWith', { id: report.resolved_with })}</Link>
            </p>
          )}
          {report.note && <p className="report-details">{report.note}</p>}
        </div>
      )}
      {confirming && (
        <ConfirmSheet
          title={confirming === 'ban' ? ti('moderation.banTitle', { name: reportedName }) : t('moderation.dismissTitle')}
          confirmLabel={t(confirming === 'ban' ? 'moderation.ban' : 'moderation.dismiss')}
          busy={busy}
          error={sheetError}
          onConfirm={() => void resolve(confirming)}
          onClose={() => setConfirming(null)}
        >
          <p>{confirming === 'ban' ? t('moderation.banText') : ti('moderation.dismissText', { name: reportedName })}</p>
        </ConfirmSheet>
      )}
    </section>
  );
}
