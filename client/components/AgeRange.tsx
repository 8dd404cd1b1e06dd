import * as Slider from '@radix-ui/react-slider';
import { MAX_AGE, MIN_AGE } from '../../shared/constants';
import { useT } from '../lib/i18n';

/** Two thumbs, 18–100, step 1. */
export function AgeRange({ labelId, min, max, onChange }: { labelId: string; min: number; max: number; onChange: (min: number, max: number) => void }) {
  const t = useT();
  return (
    <div className="age-range">
      <p className="age-range-value" aria-live="polite">
        {t('profile.ageRangeValue', { min, max })}
      </p>
      <Slider.Root
        className="slider"
        min={MIN_AGE}
        max={MAX_AGE}
        step={1}
        minStepsBetweenThumbs={0}
        value={[min, max]}
        aria-labelledby={labelId}
        onValueChange={(values) => onChange(values[0] ?? min, values[1] ?? max)}
      >
        <Slider.Track className="slider-track">
          <Slider.Range className="slider-range" />
        </Slider.Track>
        <Slider.Thumb className="slider-thumb" aria-label={t('profile.minAge')} />
        <Slider.Thumb className="slider-thumb" aria-label={t('profile.maxAge')} />
      </Slider.Root>
    </div>
  );
}
