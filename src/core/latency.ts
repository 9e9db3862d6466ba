/** Upper bounds (seconds) of the request-latency buckets: Prometheus' defaults, from 1 ms. */
const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A cumulative-bucket histogram as Prometheus exposes one: counts[i] = observations ≤ bounds[i]. */
export interface LatencySnapshot {
  bounds: number[];
  counts: number[];
  sum: number;
  count: number;
}

/** Request latencies in fixed buckets: O(buckets) per request, no samples kept. */
export class LatencyHistogram {
  private readonly counts = new Array<number>(BOUNDS.length).fill(0);
  private sum = 0;
  private count = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.count++;
    for (let i = BOUNDS.length - 1; i >= 0 && seconds <= BOUNDS[i]!; i--) this.counts[i]!++;
  }

  snapshot(): LatencySnapshot {
    return { bounds: BOUNDS, counts: [...this.counts], sum: this.sum, count: this.count };
  }
}
