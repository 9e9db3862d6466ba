import { BridgeError, isRetryable } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { countOf } from '../core/row-set.js';
import type { Reply, RunMode, Sink, Source, SourceBatch } from '../core/route.js';
import type { StatsHub } from '../stats/hub.js';
import { AckTracker } from './ack-tracker.js';
import { deliverBatch } from './deliver.js';
import { StoppedWhileRetrying, withRetry } from './retry.js';

/** Longest the reader goes without a turn of the event loop (see the reader). */
const TURN_MS = 2;

export interface RunOptions {
  source: Source;
  sink: Sink;
  mode: RunMode;
  batchSize: number;
  /** Stop after about this many messages (a run of equal cursor values is kept whole). */
  limit?: number;
  /** Batches read ahead of the sink. */
  readAhead: number;
  /** Writes in flight at once, when the route decides rather than the sink (row batches). */
  concurrency?: number;
  maxRetries: number;
  stats: StatsHub;
  /** Aborted on SIGINT/SIGTERM: finish the batch being written, release the rest, save, return. */
  stop: AbortSignal;
  /** Receives replies the sink produced (lookup answers). */
  onReplies?: (messages: Message[], replies: Reply[]) => Promise<void>;
  /** Takes messages the sink rejects for good (constraint, type), so the rest goes on. */
  deadLetter?: Sink;
}

export interface RunResult {
  rows: number;
  stopped: boolean;
}

/**
 * Pulls batches from the source and writes them to the sink in order, one write at a time, with up
 * to `readAhead` batches read ahead. A batch is acked (cursor saved, rows deleted) only after the
 * sink confirmed it and every batch before it, so a crash at any point loses nothing.
 */
export async function runRoute(o: RunOptions): Promise<RunResult> {
  const { source, sink, stats } = o;
  const internal = new AbortController();
  // A source that must not lose what it accepted keeps being read after a stop, until it says it is empty.
  const drains = typeof source.stopAccepting === 'function';
  const readSignal = drains ? internal.signal : AbortSignal.any([o.stop, internal.signal]);
  if (drains) o.stop.addEventListener('abort', () => source.stopAccepting!(), { once: true });
  const stopped = (): boolean => o.stop.aborted && !drains;
  const queue: SourceBatch[] = [];
  let readerDone = false;
  let readerError: unknown;
  let wake: (() => void) | undefined;
  let spaceFree: (() => void) | undefined;
  const notifyWriter = (): void => {
    wake?.();
    wake = undefined;
  };
  const notifyReader = (): void => {
    spaceFree?.();
    spaceFree = undefined;
  };
  const retryPolicy = (signal: AbortSignal) => ({
    maxRetries: o.maxRetries,
    signal,
    onRetry: (e: unknown, attempt: number, wait: number) => {
      stats.retries++;
      stats.lastError = (e as Error).message;
      stats.setState('retrying');
      stats.warn(`retry ${attempt} in ${wait} ms: ${(e as Error).message}`);
    },
  });

  let read = 0;
  let turnAt = performance.now();
  // Set by an immediate queued at the last turn: the event loop went round by itself since.
  let turned = true;
  const markTurned = (): void => {
    turned = true;
  };
  const reader = (async () => {
    try {
      while (!readSignal.aborted) {
        // Drivers that answer synchronously (SQLite) resolve every await at once: without a turn of
        // the event loop now and then, no timer (progress, view), worker message or signal runs, and
        // no socket is read: a COPY the sink opened waits for the server's answer until the next
        // turn, and the server sits idle meanwhile. A turn every 50 ms held the first rows of a
        // SQLite -> PostgreSQL copy back ~100 ms (two round trips) and each new COPY up to 50 ms.
        // So every 2 ms the reader makes sure the loop went round, and yields only if it did not: a
        // source that waits on a socket (MariaDB) turns it anyway, and a yield per batch there cost
        // 7 % of a 1M-row copy.
        if (performance.now() - turnAt >= TURN_MS) {
          if (!turned) await new Promise<void>((r) => setImmediate(r));
          turned = false;
          setImmediate(markTurned);
          turnAt = performance.now();
        }
        while (queue.length >= o.readAhead && !readSignal.aborted) await new Promise<void>((r) => (spaceFree = r));
        if (readSignal.aborted) break;
        const want = o.limit === undefined ? o.batchSize : Math.min(o.batchSize, o.limit - read);
        if (want <= 0) break;
        const batch = await withRetry(() => source.next(want, readSignal), retryPolicy(readSignal));
        if (stats.state === 'retrying') stats.setState('running');
        if (!batch) break;
        // An empty batch still moves a position (a cursor's frontier): it is acknowledged in order, after the writes before it.
        const n = countOf(batch);
        if (n === 0 && queue.length === 0 && !source.durablePosition) {
          await batch.ack();
          continue;
        }
        read += n;
        stats.rowsRead += n;
        queue.push(batch);
        // Rows read as a row set have no messages until asked for them (asking would convert them): not told.
        if (!batch.rows) sink.ahead?.(batch.messages);
        notifyWriter();
      }
    } catch (e) {
      if (!(e instanceof StoppedWhileRetrying)) readerError = e;
    } finally {
      readerDone = true;
      notifyWriter();
    }
  })();

  let written = 0;
  // A source that keeps a position (cursor_id, deletes) gets each batch acknowledged before the next
  // is written, so a crash re-delivers at most one batch. Otherwise the writes of an append-only
  // sink may overlap; they are still acknowledged in batch order.
  const strict = source.durablePosition === true;
  const tracker = new AckTracker(strict, strict ? 1 : Math.max(1, o.concurrency ?? o.sink.concurrency ?? 1), {
    isStop: (e) => e instanceof StoppedWhileRetrying,
    full: () => sink.flush?.(true),
    written(batch, delivered) {
      // A transaction in progress is written when its commit lands (its parts may yet be rolled back).
      if (batch.held) delivered = batch.held.end === 'commit' ? (batch.held.count ?? 0) : 0;
      written += delivered;
      stats.rowsWritten += delivered;
      if (countOf(batch)) stats.batches++;
      if (batch.rows) stats.bytesWritten += batch.rows.bytes;
      else for (const m of batch.messages) stats.bytesWritten += m.byteLength;
    },
    async answered(batch, error) {
      stats.warn(`a batch of ${batch.messages.length} could not be written: ${(error as Error).message}`);
      await batch.fail!(error).catch(() => {});
    },
    async ack(batch, replies) {
      try {
        await withRetry(() => batch.ack(replies), { ...retryPolicy(o.stop), maxRetries: batch.ackRetryable === false ? 0 : Math.min(o.maxRetries, 10) });
        if (batch.position !== undefined) stats.position = batch.position;
      } catch (e) {
        // A failed ack moves no position: the batch will be delivered again, which at-least-once allows.
        if (!isRetryable(e) && !(e instanceof StoppedWhileRetrying)) throw e;
        stats.warn(`could not record progress (will re-deliver after a restart): ${(e as Error).message}`);
      }
    },
  });
  const giveBack = (batches: SourceBatch[]): void => {
    queue.unshift(...batches);
    stats.inFlight = queue.length + tracker.inFlight;
  };

  try {
    for (;;) {
      // Finished writes are acknowledged as soon as they finish, in order, even while no batch waits.
      giveBack(await tracker.settleFinished());
      if (queue.length === 0 && !readerDone) {
        const oldest = tracker.oldest();
        await Promise.race([new Promise<void>((r) => (wake = r)), ...(oldest ? [oldest] : [])]);
        continue;
      }
      if (stopped() || tracker.failed) break;
      const batch = queue.shift();
      if (!batch) break;
      notifyReader();
      await tracker.beforeWrite();
      // A source that answers failures itself gets few retries: its clients are waiting.
      const retry = batch.fail ? { ...retryPolicy(o.stop), maxRetries: Math.min(o.maxRetries, 2) } : retryPolicy(o.stop);
      const rejectTo = source.rejectMessage ? (m: Message, e: Error) => source.rejectMessage!(m, e) : undefined;
      const done = deliverBatch(batch, { sink, deadLetter: o.deadLetter, rejectTo, retry, stats }).then(
        async ({ replies, dead }) => {
          if (stats.state === 'retrying') stats.setState('running');
          if (replies && o.onReplies) await o.onReplies(batch.messages, replies);
          return { dead, replies };
        },
        (error: unknown) => ({ error }),
      );
      stats.inFlight = queue.length + tracker.inFlight + 1;
      giveBack(await tracker.add(batch, done));
    }
    // Finish what is in flight, in order; after a failure the rest is given back.
    sink.flush?.();
    giveBack(await tracker.drain());
  } finally {
    internal.abort();
    notifyReader();
    await reader;
    await tracker.idle();
    for (const b of queue.splice(0)) await b.release?.().catch(() => {});
    stats.inFlight = 0;
  }
  const failure = tracker.writeError ?? tracker.ackError ?? readerError;
  if (failure !== undefined) throw failure instanceof BridgeError ? failure.on(failure === readerError ? 'source' : 'sink') : failure;
  return { rows: written, stopped: o.stop.aborted };
}
