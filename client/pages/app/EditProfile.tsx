import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { goBack, useBackCloses } from '../../lib/back-closes';
import { revealFirstError } from '../../lib/reveal-error';
import { toast } from '../../lib/toast';
import { BIO_MAX_LENGTH, DEFAULT_GENDER, DEFAULT_MAX_MATCHING_AGE, DEFAULT_MIN_MATCHING_AGE, type Gender, GENDERS, MAX_PHOTOS, NAME_MAX_LENGTH } from '../../../shared/constants';
import { fitPaste, maxUnits } from '../../../shared/text-length';
import type { FieldErrors as FieldErrorMap } from '../../../shared/schemas/common';
import type { ImageField, OwnProfile, ProfileInput } from '../../../shared/schemas/users';
import { AgeRange } from '../../components/AgeRange';
import { FieldErrors } from '../../components/AuthLayout';
import { DateField } from '../../components/DateField';
import { PhotoUploader } from '../../components/PhotoUploader';
import { ConfirmSheet } from '../../components/Sheet';
import { Loading } from '../../components/Loading';
import { Offline } from '../../components/Waiting';
import { ApiError, logFailure, ValidationError } from '../../lib/api';
import { phoneTimeZone } from '../../lib/dates';
import { errorMessage, useFieldErrors, withoutError } from '../../lib/errors';
import { allowedWithIncompleteProfile } from '../../lib/gating';
import { getPendingJoin } from '../../lib/pending-join';
import { useT, useTi } from '../../lib/i18n';
import { type LoadFailure, loadFailure, useRetryWhenBackOnline } from '../../lib/socket';
import { IMAGE_FIELDS_LIST, photosOf } from '../../lib/profile-fields';
import { mergePhotos } from '../../lib/photos';
import { refreshWhenVisible } from '../../lib/when-visible';
import { useProfile } from '../../stores/profile';
import { useSession } from '../../stores/session';
import { BusyButton } from '../../components/BusyButton';
import { useDraft } from '../../lib/draft';

interface Form {
  /** Merged with a save made on another device (`rebase`): the form says so until it is saved or undone. */
  elsewhere?: boolean;
  /** Merged with more photos than fit: some the other device added are left out, and go with the save. */
  photosLeftOut?: boolean;
  name: string;
  bio: string;
  gender: Gender;
  date_of_birth: string | null;
  photos: string[];
  genders_to_match: Gender[];
  min_matching_age: number;
  max_matching_age: number;
}

function toForm(profile: OwnProfile): Form {
  return {
    name: profile.name ?? '',
    bio: profile.bio ?? '',
    gender: profile.gender ?? DEFAULT_GENDER,
    date_of_birth: profile.date_of_birth,
    photos: photosOf(profile),
    genders_to_match: profile.genders_to_match,
    min_matching_age: profile.min_matching_age ?? DEFAULT_MIN_MATCHING_AGE,
    max_matching_age: profile.max_matching_age ?? DEFAULT_MAX_MATCHING_AGE,
  };
}

/** The photos fill image, image2 … image6 in order; empty slots are sent as null (removed). */
export function toInput(form: Form): ProfileInput {
  const images = Object.fromEntries(IMAGE_FIELDS_LIST.map((field, i) => [field, form.photos[i] ?? null]));
  return {
    name: form.name,
    bio: form.bio,
    gender: form.gender,
    date_of_birth: form.date_of_birth ?? '',
    time_zone: phoneTimeZone(),
    genders_to_match: form.genders_to_match,
    min_matching_age: form.min_matching_age,
    max_matching_age: form.max_matching_age,
    ...images,
    image: form.photos[0] ?? '',
  };
}

/**
 * The form over a profile saved since it was filled from `from` (on another device, `elsewhere`; or by
 * this form): what was changed here stays, every other field takes that save. Saving then keeps both
 * devices' changes, and this one's where both changed a field (the form says so, and offers to undo);
 * of the photos, both devices' additions and removals.
 */
function rebase(form: Form, from: OwnProfile, profile: OwnProfile, elsewhere: boolean): Form {
  const before = toForm(from);
  const kept = Object.entries(form).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key as keyof Form]));
  const merged: Form = { ...toForm(profile), ...Object.fromEntries(kept), elsewhere, photosLeftOut: undefined };
  // Photos changed here too: both devices' additions and removals are kept, the first MAX_PHOTOS of
  // them (a photo left out is deleted), and the form says when some did not fit.
  if (kept.some(([key]) => key === 'photos')) {
    const photos = mergePhotos(before.photos, form.photos, toForm(profile).photos, Infinity);
    merged.photos = photos.slice(0, MAX_PHOTOS);
    if (photos.length > MAX_PHOTOS) merged.photosLeftOut = true;
  }
  return merged;
}

/** A form's draft (`useDraft`): the form, and the profile it was filled from. */
interface Draft {
  form: Form;
  from: OwnProfile;
}

/**
 * A draft over the profile as the form opens: as it was, if the profile is the one it was typed over;
 * else that profile saved since on another device, with only what was changed here over it, which the
 * form says (`rebase`). Taken whole, the draft would silently put back what the other device changed.
 */
const restore = ({ form, from }: Draft, profile: OwnProfile) => (from.version === profile.version ? form : rebase(form, from, profile, true));

/** `leavingTo` for the back gesture or button: the guard's entry is gone, one more step back leaves. */
const BACK = Symbol('back');
/** Whether the form holds other values than the profile's. */
const changed = (form: Form, profile: OwnProfile) => JSON.stringify(toInput(form)) !== JSON.stringify(toInput(toForm(profile)));

/** One form error toast at a time: a new one takes the place of the last. */
const FORM_TOAST = 'profile-form';
export function EditProfile() {
  const t = useT();
  const ti = useTi();
  const profile = useProfile((state) => state.profile);
  const load = useProfile((state) => state.load);
  const save = useProfile((state) => state.save);
  const incomplete = useSession((state) => state.user?.is_profile_completed === false);
  // On the way into an event (its QR at the door, or Join): the place kept there waits for this profile.
  const held = incomplete && getPendingJoin()?.name;
  const [form, setForm] = useState<Form | null>(null);
  // What was typed before a reload, or before the phone discarded the tab, with the profile it was
  // typed over: the form opens with those changes, over the profile as it is now (`restore`).
  const { draft, keep } = useDraft<Draft>('profile');
  const [errors, setErrors] = useFieldErrors();
  const [busy, setBusy] = useState(false);
  const [uploading, setUploading] = useState(false);
  /** Where a tap on a link, or the back gesture, would have gone while the form held changes: the discard step asks first. */
  const [leavingTo, setLeavingTo] = useState<string | typeof BACK | null>(null);
  /** The "upload a photo" toast still up: a photo added takes it away. */
  const photoToast = useRef<number | null>(null);
  const formElement = useRef<HTMLFormElement>(null);
  /** A save was just refused for its fields: once they show their errors, the first is brought into view. */
  const revealErrors = useRef(false);
  const [, navigate] = useLocation();
  // A photo on its way up is a change too: leaving now would lose it as surely as one already in.
  const edited = form !== null && profile != null && changed(form, profile);
  const dirty = uploading || edited;

  /** The load failed (no answer, or the server's error): the page says which, and loads again when the socket next connects. */
  const [loadFailed, setLoadFailed] = useState<LoadFailure | null>(null);
  const loadProfile = () => {
    setLoadFailed(null);
    load().catch((error: unknown) => {
      logFailure('Could not load profile', error);
      setLoadFailed(loadFailure(error));
    });
  };
  // Once, on opening (`load` is the store's and never changes).
  useEffect(() => loadProfile(), [load]);
  useRetryWhenBackOnline(loadFailed !== null, loadProfile);
  // The profile read again (the page's own load, a tab back in front, a save on another device, this
  // form's own) fills the form while it is untouched; over changes made here (an answer that lands
  // after the first keystrokes, another device's save) it fills only the fields left as they were
  // (`rebase`), and says so unless it is this form's own save coming back.
  const filledFrom = useRef<OwnProfile | null>(null);
  const saving = useRef(false);
  useEffect(() => {
    const from = filledFrom.current;
    // The same again (the `account:changed` of this form's own save): nothing new to show.
    if (!profile || profile.version === from?.version) return;
    filledFrom.current = profile;
    const elsewhere = !saving.current;
    setForm((current) => {
      if (current && from && changed(current, from)) return rebase(current, from, profile, elsewhere);
      return !from && draft?.from ? restore(draft, profile) : toForm(profile);
    });
  }, [profile]);
  // Kept while it holds changes; gone once they are saved, undone or discarded.
  useEffect(() => {
    if (form) keep(edited ? { form, from: filledFrom.current! } : null);
  }, [form, edited]);
  useEffect(() => {
    if (!revealErrors.current) return;
    revealErrors.current = false;
    revealFirstError(formElement.current);
  }, [errors]);
  // Back to this tab, the form untouched: as it is now, if another device saved it meanwhile.
  const untouched = !dirty && !busy && !uploading;
  useEffect(() => {
    if (!untouched) return;
    return refreshWhenVisible(() => void load().catch(() => {}));
  }, [untouched, load]);
  const hasPhoto = Boolean(form?.photos[0]);
  useEffect(() => {
    if (!hasPhoto || photoToast.current === null) return;
    toast.dismiss(photoToast.current);
    photoToast.current = null;
    setErrors(withoutError('image'));
  }, [hasPhoto]);
  useEffect(() => {
    if (!dirty && !incomplete) return;
    // Leaving the app (a reload, the tab closed): the browser's own question.
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Safari's and older browsers' way to ask.
      event.returnValue = '';
    };
    // Leaving the page by one of the app's links (the nav, the top bar): ours.
    const onClick = (event: MouseEvent) => {
      const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
      if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || link.target === '_blank') return;
      const url = new URL(link.href);
      const here = (path: string) => path.replace(/\/+$/, '') === window.location.pathname.replace(/\/+$/, '');
      if (url.origin !== window.location.origin || here(url.pathname)) return;
      // A first profile, and a page that needs it (the deck, the chats): its gate would bring the user
      // straight back here, to a form emptied of what they had entered. They stay, and are told why.
      if (incomplete && !allowedWithIncompleteProfile(url.pathname)) {
        event.preventDefault();
        event.stopPropagation();
        toast.info(t('profile.completeFirst'), { key: FORM_TOAST });
        return;
      }
      if (!dirty) return;
      event.preventDefault();
      event.stopPropagation();
      setLeavingTo(url.pathname + url.search);
    };
    if (dirty) window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty, incomplete, t]);
  // Leaving by the phone's back gesture or button (or the browser's): the app's router would go at
  // once. While the form holds changes, the page is guarded as an overlay is (`useBackCloses`): an
  // entry of the same address lies on top of the history, going back over it asks, and staying puts
  // it back. Gone back over when the form holds no changes again (saved, or undone), so that no entry
  // of it stays behind; a link followed goes back over it first (the routers' `aroundNav`).
  useBackCloses(dirty && leavingTo !== BACK, () => {
    setLeavingTo(BACK);
    return true;
  });
  // Come from the empty deck's "Change preferences": they are far below the fold, brought into view.
  const shown = form !== null;
  useEffect(() => {
    if (shown && window.location.hash === '#preferences') document.getElementById('preferences')?.scrollIntoView?.({ block: 'center' });
  }, [shown]);

  if (!form && loadFailed) return <Offline text={t(loadFailed === 'offline' ? 'profile.offline' : 'error.generic')} onRetry={loadProfile} />;
  if (!form) return <Loading />;
  /** A field's change; what was said of it (a refused save) goes with its old value. */
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm((current) => (current ? { ...current, [key]: value } : current));
    setErrors(withoutError(key));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!form) return;
    // A missing photo or date of birth is said in a toast, and under the field too, which is brought
    // into view: it may be far above the save button (the photos) or half behind it (the date). The
    // server is asked all the same, for what else is wrong (an empty bio, nobody to be shown), so that
    // every field says its problem at once; it cannot save a profile without either.
    const needPhoto = !form.photos[0];
    const missing: FieldErrorMap = {
      ...(needPhoto && { image: [t('profile.needPhoto')] }),
      ...(!form.date_of_birth && { date_of_birth: [t('profile.needDate')] }),
    };
    const refuse = (fields: FieldErrorMap, message: string) => {
      const toastId = toast.error(message, { key: FORM_TOAST });
      if (needPhoto) photoToast.current = toastId;
      revealErrors.current = true;
      setErrors({ ...fields, ...missing });
    };
    const said = missing.image?.[0] ?? missing.date_of_birth?.[0];
    setBusy(true);
    setErrors({});
    try {
      saving.current = true;
      await save(toInput(form));
      keep(null);
      // The errors of earlier attempts are fixed now: they should not linger over the success. A chat
      // message's toast that came meanwhile stays: the way to it is not done with.
      toast.dismissSaid();
      toast.success(t('profile.saved'));
      // Completed for the first time: on to the deck, which is what it was for (in the form's place:
      // Back does not lead to it again). A pending check-in takes them there itself (AppRoot).
      // The guard's entry goes first: the navigation waits for its step back (`afterOverlays`).
      if (incomplete) navigate('/app/home/', { replace: true });
    } catch (error) {
      if (error instanceof ValidationError) {
        // The server wrote them in the reader's language (api.ts sends it).
        refuse(error.fields, said ?? error.fields.non_field_errors?.[0] ?? t('profile.checkFields'));
      } else if (said) {
        // No answer to say the rest: what this phone knows is missing.
        refuse({}, said);
      } else if (error instanceof ApiError && error.code === 'profile_changed') {
        // Saved on another device since this form was filled, its news not heard (the socket was down,
        // or it came during this save): that save comes into the form under the changes made here,
        // which says so, to be saved again.
        setForm((current) => current && { ...current, elsewhere: true });
        loadProfile();
      } else {
        toast.error(errorMessage(error, t), { key: FORM_TOAST });
      }
    } finally {
      saving.current = false;
      setBusy(false);
    }
  }

  const toggleGender = (gender: Gender) =>
    set('genders_to_match', form.genders_to_match.includes(gender) ? form.genders_to_match.filter((g) => g !== gender) : [...form.genders_to_match, gender]);
  // Each said of the photo it is about (a photo of a form left open a day, swept meanwhile), by its place.
  const imageErrors = IMAGE_FIELDS_LIST.flatMap((field, i) => (errors[field] ?? []).map((message) => (form.photos[i] ? t('profile.photoError', { n: i + 1, message }) : message)));

  return (
    <section className="page edit-profile">
      <h1>{t('profile.title')}</h1>
      {incomplete && <p className="notice">{held ? ti('profile.completeToJoin', { event: held }) : t('profile.completeFirst')}</p>}
      {form.elsewhere && dirty && (
        <div className="notice changed-notice">
          <p role="status">
            {t('profile.changedElsewhere')}
            {form.photosLeftOut && ` ${t('profile.photosLeftOut', { max: MAX_PHOTOS })}`}
          </p>
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setForm(toForm(profile!))}>
            {t('profile.undoMine')}
          </button>
        </div>
      )}
      <form ref={formElement} className="form" onSubmit={submit} noValidate>
        {/* Each label names its control only: the error line under it is the control's description. */}
        <div className="field">
          <label htmlFor="name">{t('profile.name')}</label>
          <input id="name" name="name" dir="auto" value={form.name} required maxLength={maxUnits(form.name, NAME_MAX_LENGTH)} onPaste={fitPaste} onChange={(event) => set('name', event.target.value)} aria-invalid={Boolean(errors.name)} aria-describedby="name-error" />
          <FieldErrors id="name-error" errors={errors.name} />
        </div>

        <fieldset className="field">
          <legend>{t('profile.photos')}</legend>
          <PhotoUploader
            photos={form.photos}
            onChange={(update) => {
              setForm((current) => (current ? { ...current, photos: update(current.photos) } : current));
              // Said of photos by their places, which have changed.
              setErrors((current) => Object.fromEntries(Object.entries(current).filter(([field]) => !IMAGE_FIELDS_LIST.includes(field as ImageField))));
            }}
            onUploading={setUploading}
            errorId={imageErrors.length ? 'image-error' : undefined}
          />
          <FieldErrors id="image-error" errors={imageErrors.length ? imageErrors : undefined} />
        </fieldset>

        <div className="field">
          <label htmlFor="bio">{t('profile.bio')}</label>
          <textarea id="bio" name="bio" dir="auto" value={form.bio} required rows={4} maxLength={maxUnits(form.bio, BIO_MAX_LENGTH)} onPaste={fitPaste} onChange={(event) => set('bio', event.target.value)} aria-invalid={Boolean(errors.bio)} aria-describedby="bio-error" />
          <FieldErrors id="bio-error" errors={errors.bio} />
        </div>

        <div className="field">
          <label htmlFor="date_of_birth">{t('profile.dateOfBirth')}</label>
          <DateField id="date_of_birth" value={form.date_of_birth} onChange={(value) => set('date_of_birth', value)} invalid={Boolean(errors.date_of_birth)} describedBy="dob-error" />
          <FieldErrors id="dob-error" errors={errors.date_of_birth} />
        </div>

        <div className="field">
          <label htmlFor="gender">{t('profile.gender')}</label>
          <select id="gender" name="gender" value={form.gender} onChange={(event) => set('gender', event.target.value as Gender)} aria-invalid={Boolean(errors.gender)} aria-describedby="gender-error">
            {GENDERS.map((gender) => (
              <option key={gender} value={gender}>
                {t(`gender.${gender}`)}
              </option>
            ))}
          </select>
          <FieldErrors id="gender-error" errors={errors.gender} />
        </div>

        <fieldset className="field" id="preferences">
          <legend>{t('profile.gendersToMatch')}</legend>
          <div className="checks">
            {GENDERS.map((gender) => (
              <label key={gender} className="check">
                <input
                  type="checkbox"
                  name="genders_to_match"
                  value={gender}
                  checked={form.genders_to_match.includes(gender)}
                  onChange={() => toggleGender(gender)}
                  aria-describedby={errors.genders_to_match ? 'gtm-error' : undefined}
                />
                <span>{t(`gender.${gender}`)}</span>
              </label>
            ))}
          </div>
          <FieldErrors id="gtm-error" errors={errors.genders_to_match} />
        </fieldset>

        <div className="field">
          <span id="age-range-label" className="label">
            {t('profile.ageRange')}
          </span>
          <AgeRange
            labelId="age-range-label"
            min={form.min_matching_age}
            max={form.max_matching_age}
            onChange={(min, max) => setForm((current) => (current ? { ...current, min_matching_age: min, max_matching_age: max } : current))}
          />
          <FieldErrors id="age-error" errors={[...(errors.min_matching_age ?? []), ...(errors.max_matching_age ?? [])].filter(Boolean)} />
        </div>

        {/* Not while photos are on their way up: the save would go without them. A tap leaves the focus
            in the field written in: the keyboard's layout (app.css) stays, not moving the button away
            from under the finger before it lifts. */}
        <BusyButton type="submit" className="btn btn-primary btn-block sticky-save" busy={busy || uploading} onMouseDown={(event) => event.preventDefault()}>
          {uploading ? t('profile.waitForUploads') : t('profile.save')}
        </BusyButton>
      </form>
      {leavingTo !== null && (
        <ConfirmSheet
          title={t('profile.discardTitle')}
          error={null}
          busy={false}
          tone="primary"
          confirmLabel={t('profile.discard')}
          cancelLabel={t('profile.keepEditing')}
          onConfirm={() => {
            if (leavingTo === BACK) {
              // The guard's entry is gone already: one more step back is where the user was going. The
              // changes go first, in case there is no step back (the app opened on this page).
              setLeavingTo(null);
              if (profile) setForm(toForm(profile));
              goBack();
              return;
            }
            // Made once the guard's and this sheet's entries are gone back over: back from there comes here, once.
            keep(null);
            navigate(leavingTo);
          }}
          onClose={() => setLeavingTo(null)}
        >
          <p>{t('profile.discardText')}</p>
        </ConfirmSheet>
      )}
    </section>
  );
}
