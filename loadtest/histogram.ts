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
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i += 1) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.max, MIN_MS * GROWTH ** (i + 1));
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
      max: this.count ? round(this.max) : null,
    };
  }
}
