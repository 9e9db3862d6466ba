import type { BridgeError } from '../../../core/errors.js';
import type { SourceBatch } from '../../../core/route.js';
import type { Wakeup } from '../../../core/wakeup.js';
import type { ReleasedChanges } from './change-batches.js';

/** What a change source (PostgreSQL's slot, the binlog) gives the delivery loop they share (nextChanges). */
export interface ChangeLoop {
  /** Nothing more will come: stopped while starting, or a snapshot-only run copied its tables. */
  ended(): boolean;
  /** A failure of the stream: transient ones restart it (from the confirmed position) and are retried. */
  failure(): BridgeError | undefined;
  restart(): Promise<void>;
  /** The stream is to be read again from the confirmed position (no failure: nothing to retry). */
  rereadDue?(): boolean;
  released(): ReleasedChanges;
  confirm(commit: bigint): void;
  /** The initial copy while it lasts: batches, 'wait' (its rows in flight), or 'over'. */
  copying(): { next(max: number, signal: AbortSignal): Promise<SourceBatch | 'wait' | 'over'> } | undefined;
  /**
   * Rows per batch of the initial copy (the route's --batch-size, 1,024 unless given), where the
   * stream's batches may be larger (route.ts CHANGES_INTO_TABLE): rows of a whole table held as
   * messages 4,096 at a time took 170 MB against 113 MB into a PostgreSQL mirror, and were slower into SQLite.
   */
  copyMax(): number;
  /** Every copied row confirmed: the stream takes over. */
  copyOver(): Promise<void>;
  take(max: number): SourceBatch;
  /** The run ends once drained (copy, --exit-when-drained). */
  draining(): boolean;
  caughtUp(): boolean;
  /** Drained: the run ends as asked. */
  drained?(): void;
  /** Draining and idle: ask the server for its end now rather than at the next tick. */
  askEnd?(): void;
  wakeup: Wakeup;
}

/**
 * The next batch of a change source: the initial copy's rows until it is over, then whole source
 * transactions as they are released. Transactions without captured changes are confirmed at once
 * while nothing is in flight; a transient failure restarts the stream and is thrown for a retry.
 */
export async function nextChanges(l: ChangeLoop, max: number, signal: AbortSignal): Promise<SourceBatch | null> {
  for (;;) {
    if (signal.aborted || l.ended()) return null;
    const e = l.failure();
    if (e && e.kind !== 'transient') throw e;
    const reread = l.rereadDue?.() === true;
    // A restart resumes after the batches handed out: parts of a held transaction settle first (a failed commit is read again).
    if ((e || reread) && l.released().heldInFlight > 0) {
      await l.wakeup.wait(signal);
      continue;
    }
    if (e) {
      await l.restart();
      throw e;
    }
    if (reread) {
      await l.restart();
      continue;
    }
    for (let c: bigint | undefined; l.released().inFlight === 0 && (c = l.released().shiftCommit()) !== undefined; ) l.confirm(c);
    const copying = l.copying();
    const copied = await copying?.next(Math.min(max, l.copyMax()), signal);
    if (copied === 'over') await l.copyOver();
    else if (copied && copied !== 'wait') return copied;
    if (copied) continue;
    if (l.released().waiting > 0) return l.take(max);
    if (l.draining()) {
      if (l.caughtUp()) {
        l.drained?.();
        return null;
      }
      if (!copying) l.askEnd?.();
    }
    await l.wakeup.wait(signal);
  }
}
