/**
 * A latency histogram of fixed size, whatever the number of samples: log-spaced buckets 1 % wide from
 * 10 µs to ~30 minutes, so a percentile is within 1 % of the true sample; the maximum is exact. A long
 * party keeps a few KB per series rather than every sample.
 */
const MIN_MS = 0.01;
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
const BUCKETS = Math.ceil(Math.log(2e6 / MIN_MS) / LOG_GROWTH) + 1;

export class Histogram {
  private counts = new Uint32Array(BUCKETS);
  count = 0;
  max = 0;
  sum = 0;

  record(ms: number) {
    const value = ms < MIN_MS ? MIN_MS : ms;
    const index = Math.min(BUCKETS - 1, Math.floor(Math.log(value / MIN_MS) / LOG_GROWTH));
    this.counts[index]! += 1;
    this.count += 1;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  /** The p-th percentile (0–100) in ms: the upper edge of its bucket, never above the maximum; NaN when empty. */
  percentile(p: number): number {
    return this.atRank(Math.ceil((p / 100) * this.count));
  }

  /**
   * Where the p-th percentile of what was sampled from lies, with 95 % confidence: the samples of the
   * ranks the binomial puts around it (order statistics, with the binomial's exact tails). A few
   * hundred samples pin a p99 down only loosely: with 500, it lies between the 11th largest sample and
   * the largest. Too few to bound it from above (a p99 from fewer than 368 samples), the upper end is
   * Infinity; too few to bound it from below, 0. [NaN, NaN] when empty.
   */
  percentileInterval(p: number): [number, number] {
    if (this.count === 0) return [Number.NaN, Number.NaN];
    const n = this.count;
    // How many samples lie above the true percentile: binomial, n draws of probability 1 − p. The
    // upper end is the sample of rank n − a, for the largest a with P(above ≤ a) ≤ 2.5 %; the lower
    // end the sample of rank n − b, for the smallest b with P(above ≤ b) ≥ 97.5 %.
    const cdf = binomialCdfTo(n, 1 - p / 100, 0.975);
    const a = cdf.findLastIndex((value) => value <= 0.025);
    const b = cdf.length - 1;
    return [n - b >= 1 ? this.atRank(n - b) : 0, a >= 0 ? this.atRank(n - a) : Number.POSITIVE_INFINITY];
  }

  /** The sample of this rank (1 = the smallest), clamped to the samples there are. */
  private atRank(rank: number): number {
    if (this.count === 0) return Number.NaN;
    const clamped = Math.min(this.count, Math.max(1, rank));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i += 1) {
      seen += this.counts[i]!;
      if (seen >= clamped) return Math.min(this.max, MIN_MS * GROWTH ** (i + 1));
    }
    return this.max;
  }

  merge(other: Histogram) {
    for (let i = 0; i < BUCKETS; i += 1) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.sum += other.sum;
    if (other.max > this.max) this.max = other.max;
  }

  summary() {
    const round = (value: number) => (Number.isFinite(value) ? Math.round(value * 100) / 100 : null);
    return {
      count: this.count,
      p50: round(this.percentile(50)),
      p95: round(this.percentile(95)),
      p99: round(this.percentile(99)),
      /**
       * The p99's 95 % confidence interval (`percentileInterval`): how far this run's p99 can be
       * trusted. The upper end is null when there were too few samples to bound it (or none at all).
       */
      p99_interval: this.percentileInterval(99).map(round) as [number | null, number | null],
      max: this.count ? round(this.max) : null,
    };
  }
}

/**
 * P(X ≤ k) for X binomial with n draws of probability r, for k = 0, 1, … up to the first k where it
 * reaches `until` (or n). Each term comes from the one before, in logarithms, so that a large n does
 * not underflow the first; the work grows with n·r, not n.
 */
function binomialCdfTo(n: number, r: number, until: number): number[] {
  const logOdds = Math.log(r / (1 - r));
  let logTerm = n * Math.log1p(-r);
  const cdf = [Math.exp(logTerm)];
  for (let k = 0; cdf[k]! < until && k < n; k += 1) {
    logTerm += Math.log((n - k) / (k + 1)) + logOdds;
    cdf.push(k + 1 === n ? 1 : Math.min(1, cdf[k]! + Math.exp(logTerm)));
  }
  return cdf;
}
