// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Suspense, useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_AGE, MIN_AGE } from '../../shared/constants';
import { es } from '../../shared/i18n/es';
import { AgeRange } from '../../client/components/AgeRange';
import { initLanguage, useMessages } from '../../client/lib/i18n';
import { appMessages } from '../../client/lib/messages-app';

const onChange = vi.fn();

function Range({ from, to }: { from: number; to: number }) {
  useMessages(appMessages);
  const [[min, max], setRange] = useState([from, to]);
  return (
    <>
      <span id="age-label">{es['profile.ageRange']}</span>
      <AgeRange
        labelId="age-label"
        min={min}
        max={max}
        onChange={(nextMin, nextMax) => {
          onChange(nextMin, nextMax);
          setRange([nextMin, nextMax]);
        }}
      />
    </>
  );
}

async function open(from: number, to: number) {
  await initLanguage();
  render(
    <Suspense fallback={null}>
      <Range from={from} to={to} />
    </Suspense>,
  );
  return {
    min: await screen.findByRole<HTMLInputElement>('slider', { name: es['profile.minAge'] }),
    max: screen.getByRole<HTMLInputElement>('slider', { name: es['profile.maxAge'] }),
  };
}

const value = (min: number, max: number) => es['profile.ageRangeValue'].replace('{min}', String(min)).replace('{max}', String(max));

describe('the age range', () => {
  afterEach(() => {
    cleanup();
    onChange.mockReset();
    vi.restoreAllMocks();
  });

  it('is two native sliders from 18 to 100 by 1, each labelled, in a group labelled by the field', async () => {
    const { min, max } = await open(25, 40);
    for (const input of [min, max]) {
      expect(input.type).toBe('range');
      expect([input.min, input.max, input.step]).toEqual([String(MIN_AGE), String(MAX_AGE), '1']);
    }
    expect([min.value, max.value]).toEqual(['25', '40']);
    expect(screen.getByRole('group', { name: es['profile.ageRange'] }).contains(min)).toBe(true);
    const shown = screen.getByText(value(25, 40));
    expect(shown.getAttribute('aria-live')).toBe('polite');
  });

  it('moves each thumb up to the other, never past it: the two may meet', async () => {
    const { min, max } = await open(25, 40);
    fireEvent.change(min, { target: { value: '30' } });
    expect(onChange).toHaveBeenLastCalledWith(30, 40);
    expect(screen.getByText(value(30, 40))).toBeTruthy();

    fireEvent.change(min, { target: { value: '55' } });
    expect(onChange).toHaveBeenLastCalledWith(40, 40);
    expect([min.value, max.value]).toEqual(['40', '40']);

    fireEvent.change(max, { target: { value: '20' } });
    expect(onChange).toHaveBeenLastCalledWith(40, 40);
    expect([min.value, max.value]).toEqual(['40', '40']);

    fireEvent.change(max, { target: { value: '70' } });
    expect(onChange).toHaveBeenLastCalledWith(40, 70);
    fireEvent.change(max, { target: { value: String(MAX_AGE) } });
    fireEvent.change(min, { target: { value: String(MAX_AGE) } });
    expect(onChange).toHaveBeenLastCalledWith(MAX_AGE, MAX_AGE);
    expect(screen.getByText(value(MAX_AGE, MAX_AGE))).toBeTruthy();
  });

  it('keeps the thumb that can still move on top where the two meet', async () => {
    const { min, max } = await open(MAX_AGE, MAX_AGE);
    // At 100 only the min thumb can move (down).
    expect(min.hasAttribute('data-top')).toBe(true);
    expect(max.hasAttribute('data-top')).toBe(false);
    fireEvent.change(min, { target: { value: '90' } });
    expect(onChange).toHaveBeenLastCalledWith(90, MAX_AGE);
    cleanup();

    // At 18 only the max thumb can (up).
    const low = await open(MIN_AGE, MIN_AGE);
    expect(low.max.hasAttribute('data-top')).toBe(true);
    expect(low.min.hasAttribute('data-top')).toBe(false);
  });

  it('lets a drag that starts on the two met thumbs move the one that can go that way', async () => {
    // As wide as on a 360 px phone: 4 px a year, a thumb 28 px.
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(DOMRect.fromRect({ width: 356, height: 44 }));
    const { min, max } = await open(50, 50);
    // The min thumb is on top here; a finger on it dragging up moves the max one.
    fireEvent.pointerDown(min);
    fireEvent.change(min, { target: { value: '60' } });
    expect(onChange).toHaveBeenLastCalledWith(50, 60);
    fireEvent.change(min, { target: { value: '65' } });
    expect(onChange).toHaveBeenLastCalledWith(50, 65);
    expect([min.value, max.value]).toEqual(['50', '65']);
    fireEvent.pointerUp(window);

    // Apart again, the min thumb moves itself and stops at the max one.
    fireEvent.pointerDown(min);
    fireEvent.change(min, { target: { value: '70' } });
    expect(onChange).toHaveBeenLastCalledWith(65, 65);
    fireEvent.pointerUp(window);
    // By keyboard (no pointer), a thumb never takes the other along.
    fireEvent.change(min, { target: { value: '66' } });
    expect(onChange).toHaveBeenLastCalledWith(65, 65);
  });
});
