import { describe, expect, it } from 'vitest';
import { Histogram } from '../../loadtest/histogram';

const filled = (count: number) => {
  const histogram = new Histogram();
  for (let ms = 1; ms <= count; ms += 1) histogram.record(ms);
  return histogram;
};

describe('the load tool histogram', () => {
  it('reads a percentile within its 1 % buckets', () => {
    const histogram = filled(1000);
    expect(histogram.percentile(50)).toBeGreaterThanOrEqual(500);
    expect(histogram.percentile(50)).toBeLessThanOrEqual(505);
    expect(histogram.percentile(99)).toBeGreaterThanOrEqual(990);
    expect(histogram.percentile(99)).toBeLessThanOrEqual(1000);
    expect(histogram.percentile(100)).toBe(1000);
    expect(new Histogram().percentile(99)).toBeNaN();
  });

  it("puts a p99's 95 % interval around it, wider the fewer the samples", () => {
    // 1,000 samples: ranks 983 and 997, where the binomial's tails (10 samples above the p99 on
    // average) leave 2.5 % each side.
    const [low, high] = filled(1000).percentileInterval(99);
    expect(low).toBeGreaterThanOrEqual(983);
    expect(low).toBeLessThan(983 * 1.01);
    expect(high).toBeGreaterThanOrEqual(997);
    expect(high).toBeLessThan(997 * 1.01);

    // A party's ~500 messages: from the 11th largest sample (rank 490) to the largest.
    const [partyLow, partyHigh] = filled(500).percentileInterval(99);
    expect(partyLow).toBeGreaterThanOrEqual(490);
    expect(partyLow).toBeLessThan(490 * 1.01);
    expect(partyHigh).toBe(500);

    // 100,000 samples pin it down to a fraction of a percent of the range.
    const [tightLow, tightHigh] = filled(100_000).percentileInterval(99);
    expect(tightLow).toBeGreaterThan(98_900);
    expect(tightHigh).toBeLessThan(99_062 * 1.01);
    expect(new Histogram().percentileInterval(99).every(Number.isNaN)).toBe(true);
  });

  it('leaves the upper end unbounded when there are too few samples to bound it', () => {
    // Even the largest of 367 samples is below the true p99 more often than 2.5 % of the time
    // (0.99^367 > 0.025); of 368, no longer.
    expect(filled(367).percentileInterval(99)[1]).toBe(Number.POSITIVE_INFINITY);
    expect(filled(368).percentileInterval(99)[1]).toBe(368);
    // 16 samples: the 15th still bounds it from below.
    const [low, high] = filled(16).percentileInterval(99);
    expect(low).toBeGreaterThanOrEqual(15);
    expect(low).toBeLessThan(15 * 1.01);
    expect(high).toBe(Number.POSITIVE_INFINITY);
    expect(filled(16).summary().p99_interval).toEqual([Math.round(low * 100) / 100, null]);
    // The median of 3: no sample bounds it at 95 % either side.
    expect(filled(3).percentileInterval(50)).toEqual([0, Number.POSITIVE_INFINITY]);
  });

  it('reports the interval with the p99 in its summary', () => {
    const summary = filled(1000).summary();
    expect(summary.p99_interval[0]).toBeLessThanOrEqual(summary.p99!);
    expect(summary.p99_interval[1]).toBeGreaterThanOrEqual(summary.p99!);
    expect(new Histogram().summary().p99_interval).toEqual([null, null]);
  });
});
