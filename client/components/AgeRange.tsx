import { type CSSProperties, type PointerEvent, useEffect, useRef } from 'react';
import { MAX_AGE, MIN_AGE } from '../../shared/constants';
import { useT } from '../lib/i18n';

const SPAN = MAX_AGE - MIN_AGE;
/** The thumb's width in app.css (.slider-input's thumbs): at least 28 px, for a finger. */
const THUMB_PX = 28;
const MIDDLE = (MIN_AGE + MAX_AGE) / 2;
const percent = (age: number) => ((age - MIN_AGE) / SPAN) * 100;

/**
 * Two thumbs, 18–100, step 1: two native range inputs stacked over one track (only their thumbs take
 * the pointer), so that the keyboard, touch and screen readers are the browser's own. A thumb stops
 * at the other (the two may meet: min === max). Where the thumbs meet, the one that can still move
 * lies on top (the min thumb at 100, the max thumb at 18); in between, a drag that starts where the
 * thumbs (nearly) cover each other and heads the way the top one cannot go moves the other instead.
 */
export function AgeRange({ labelId, min, max, onChange }: { labelId: string; min: number; max: number; onChange: (min: number, max: number) => void }) {
  const t = useT();
  /** The drag in progress: which thumb the finger (or mouse) holds, and whether it took the pair. */
  const drag = useRef<{ thumb: 'min' | 'max'; met: boolean; other: boolean } | null>(null);

  useEffect(() => {
    const end = () => {
      drag.current = null;
    };
    window.addEventListener('pointerup', end);
    window.addEventListener('pointercancel', end);
    return () => {
      window.removeEventListener('pointerup', end);
      window.removeEventListener('pointercancel', end);
    };
  }, []);

  const changeMin = (value: number) => {
    const held = drag.current;
    // The two thumbs met under the finger, and it drags up: the max one is the one that can go there.
    if (held?.thumb === 'min' && held.met && (held.other || value > max)) {
      held.other = true;
      onChange(min, Math.max(value, min));
      return;
    }
    onChange(Math.min(value, max), max);
  };
  const changeMax = (value: number) => {
    const held = drag.current;
    if (held?.thumb === 'max' && held.met && (held.other || value < min)) {
      held.other = true;
      onChange(Math.min(value, max), max);
      return;
    }
    onChange(min, Math.max(value, min));
  };
  const hold = (thumb: 'min' | 'max') => (event: PointerEvent<HTMLInputElement>) => {
    // Met: the other thumb is at least half hidden under this one (the thumbs' centres run over
    // the input's width less one thumb).
    const pxPerYear = (event.currentTarget.getBoundingClientRect().width - THUMB_PX) / SPAN;
    drag.current = { thumb, met: (max - min) * pxPerYear < THUMB_PX / 2, other: false };
  };

  // The min thumb on top once it is in the upper half: at 100 only it can move (down).
  const minOnTop = min >= MIDDLE;
  return (
    <div className="age-range">
      <p className="age-range-value" aria-live="polite">
        {t('profile.ageRangeValue', { min, max })}
      </p>
      <div
        className="slider"
        role="group"
        aria-labelledby={labelId}
        style={{ '--slider-from': `${percent(min)}%`, '--slider-to': `${percent(max)}%` } as CSSProperties}
      >
        <div className="slider-track" aria-hidden="true">
          <div className="slider-range" />
        </div>
        <input
          type="range"
          className="slider-input"
          data-top={minOnTop || undefined}
          min={MIN_AGE}
          max={MAX_AGE}
          step={1}
          value={min}
          aria-label={t('profile.minAge')}
          onPointerDown={hold('min')}
          onChange={(event) => changeMin(Number(event.target.value))}
        />
        <input
          type="range"
          className="slider-input"
          data-top={!minOnTop || undefined}
          min={MIN_AGE}
          max={MAX_AGE}
          step={1}
          value={max}
          aria-label={t('profile.maxAge')}
          onPointerDown={hold('max')}
          onChange={(event) => changeMax(Number(event.target.value))}
        />
      </div>
    </div>
  );
}
