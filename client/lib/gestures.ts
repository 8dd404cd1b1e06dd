import { DRAG_OPACITY_OFFSETS, DRAG_ROTATION, SWIPE_EXIT_OFFSET_PX, SWIPE_THRESHOLD_PX } from '../../shared/constants';

export type SwipeDecision = 'like' | 'dislike';

/** Piecewise-linear interpolation, clamped at both ends. */
export function interpolate(value: number, inputs: readonly number[], outputs: readonly number[]): number {
  const first = inputs[0] ?? 0;
  const last = inputs[inputs.length - 1] ?? 0;
  if (value <= first) return outputs[0] ?? 0;
  if (value >= last) return outputs[outputs.length - 1] ?? 0;
  for (let i = 1; i < inputs.length; i += 1) {
    const x1 = inputs[i] ?? 0;
    if (value > x1) continue;
    const x0 = inputs[i - 1] ?? 0;
    const y0 = outputs[i - 1] ?? 0;
    const y1 = outputs[i] ?? 0;
    return y0 + ((value - x0) / (x1 - x0)) * (y1 - y0);
  }
  return outputs[outputs.length - 1] ?? 0;
}

/** −200…200 px of drag → −30…30 degrees. */
export function rotationFor(x: number): number {
  return interpolate(x, [-DRAG_ROTATION.offset, DRAG_ROTATION.offset], [-DRAG_ROTATION.degrees, DRAG_ROTATION.degrees]);
}

/** The card fades out past ±100 px, gone at ±200 px. */
export function cardOpacityFor(x: number): number {
  return interpolate(x, DRAG_OPACITY_OFFSETS, [0, 1, 1, 1, 0]);
}

/** The LIKE / NOPE stamps fade in as the card nears the threshold. */
export function likeStampOpacityFor(x: number): number {
  return interpolate(x, DRAG_OPACITY_OFFSETS, [0, 0, 0, 1, 1]);
}
export function nopeStampOpacityFor(x: number): number {
  return interpolate(x, DRAG_OPACITY_OFFSETS, [1, 1, 0, 0, 0]);
}

/** Beyond 100 px right is a like, beyond 100 px left a dislike; anything less springs back. */
export function decisionFor(x: number): SwipeDecision | null {
  if (x > SWIPE_THRESHOLD_PX) return 'like';
  if (x < -SWIPE_THRESHOLD_PX) return 'dislike';
  return null;
}

/** Likes leave 200 px to the right, everything else 200 px to the left. */
export function exitOffsetFor(action: 'like' | 'dislike' | 'skip'): number {
  return action === 'like' ? SWIPE_EXIT_OFFSET_PX : -SWIPE_EXIT_OFFSET_PX;
}
