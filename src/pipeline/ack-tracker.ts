import { countOf } from '../core/row-set.js';
import type { Reply, SourceBatch } from '../core/route.js';

/** How one batch's write ended: written (with messages dead-lettered, and the sink's answers), or failed. */
export type WriteOutcome = { dead: number; replies: Reply[] | void } | { error: unknown };

export interface AckHooks {
  /** A write succeeded and every write before it was settled: count it (before it is acknowledged). */
  written(batch: SourceBatch, delivered: number): void;
  /** Acknowledges one batch; throws what stops the run (a failure to only warn about is handled inside). */
  ack(batch: SourceBatch, replies: Reply[] | undefined): Promise<void>;
  /** The source answers a failed write itself (HTTP 502/422) and the run goes on. */
  answered(batch: SourceBatch, error: unknown): Promise<void>;
  /** Whether a write error stops the run silently (the stop was asked while retrying). */
  isStop(error: unknown): boolean;
  /** No write may start until one in flight is settled: the sink is told to confirm what it holds open. */
  full?(): void;
}

interface Flight {
  batch: SourceBatch;
  done: Promise<WriteOutcome>;
  finished: boolean;
}

/**
 * Which written batches may be acknowledged, and when (cf. Redpanda Connect's capped checkpointer):
 * - contiguous prefix: writes may finish out of order, acknowledgements run in batch order, and
 *   none runs for a batch after one whose write failed;
 * - strict (a source that keeps a position): the next write starts only once every earlier
 *   acknowledgement finished, so a crash re-delivers at most one batch;
 * - at most `concurrency` writes in flight;
 * - a failed write of a source that answers failures (batch.fail) is answered and skipped; any
 *   other failure stops acknowledging, and the batches from it on are given back.
 */
export class AckTracker {
  private readonly flights: Flight[] = [];
  private acks: Promise<void> = Promise.resolve();
  /** The first write failure that stops the run. */
  writeError: unknown;
  /** The first acknowledgement failure that stops the run. */
  ackError: unknown;

  constructor(
    private readonly strict: boolean,
    private readonly concurrency: number,
    private readonly hooks: AckHooks,
  ) {}

  get inFlight(): number {
    return this.flights.length;
  }

  get failed(): boolean {
    return this.writeError !== undefined || this.ackError !== undefined;
  }

  /** Before a write starts: in strict mode, once every earlier acknowledgement finished. */
  async beforeWrite(): Promise<void> {
    if (this.strict) await this.acks;
  }

  /** The oldest write in flight, to wait on while nothing else happens. */
  oldest(): Promise<unknown> | undefined {
    return this.flights[0]?.done;
  }

  /** A write started; returns when fewer than `concurrency` are in flight, with the batches to give back. */
  async add(batch: SourceBatch, done: Promise<WriteOutcome>): Promise<SourceBatch[]> {
    const flight: Flight = { batch, done, finished: false };
    void done.then(() => (flight.finished = true));
    this.flights.push(flight);
    const back: SourceBatch[] = [];
    while (this.flights.length >= this.concurrency) {
      if (!this.flights[0]!.finished) this.hooks.full?.();
      await this.settleOldest(back);
    }
    return back;
  }

  /** Settles the writes that finished at the head of the line (acknowledged as soon as they finish, in order). */
  async settleFinished(): Promise<SourceBatch[]> {
    const back: SourceBatch[] = [];
    while (this.flights[0]?.finished) await this.settleOldest(back);
    return back;
  }

  /** Waits for every write in flight, in order; then for the acknowledgements. */
  async drain(): Promise<SourceBatch[]> {
    const back: SourceBatch[] = [];
    while (this.flights.length) await this.settleOldest(back);
    await this.acks;
    return back;
  }

  /** Waits for the acknowledgements queued so far (writes still in flight are left alone). */
  async idle(): Promise<void> {
    await this.acks;
  }

  /**
   * Settles the oldest write once it finished. What happens to it is decided synchronously after
   * its outcome is known, so its acknowledgement is queued before any later batch's.
   */
  private async settleOldest(back: SourceBatch[]): Promise<void> {
    const f = this.flights[0]!;
    const r = await f.done;
    if (this.flights[0] !== f) return; // settled meanwhile by another caller
    this.flights.shift();
    const { batch } = f;
    if ('error' in r) {
      const stop = this.hooks.isStop(r.error);
      if (batch.fail && !stop) return this.hooks.answered(batch, r.error);
      if (!stop) this.writeError ??= r.error;
      back.push(batch);
      return;
    }
    if (this.writeError !== undefined) {
      back.push(batch);
      return;
    }
    this.hooks.written(batch, countOf(batch) - r.dead);
    this.acks = this.acks.then(async () => {
      if (this.ackError !== undefined) return;
      try {
        await this.hooks.ack(batch, r.replies ?? undefined);
      } catch (e) {
        this.ackError = e;
      }
    });
  }
}
