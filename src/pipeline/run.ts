import { BridgeError, isRetryable } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { Reply, RunMode, Sink, Source, SourceBatch } from '../core/route.js';
import type { StatsHub } from '../stats/hub.js';
import { deliver } from './deliver.js';
import { StoppedWhileRetrying, withRetry } from './retry.js';

export interface RunOptions {
  source: Source;
  sink: Sink;
  mode: RunMode;
  batchSize: number;
  /** Stop after about this many messages (a run of equal cursor values is kept whole). */
  limit?: number;
  /** Batches read ahead of the sink. */
  readAhead: number;
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
  const reader = (async () => {
    try {
      while (!readSignal.aborted) {
        while (queue.length >= o.readAhead && !readSignal.aborted) await new Promise<void>((r) => (spaceFree = r));
        if (readSignal.aborted) break;
        const want = o.limit === undefined ? o.batchSize : Math.min(o.batchSize, o.limit - read);
        if (want <= 0) break;
        const batch = await withRetry(() => source.next(want, readSignal), retryPolicy(readSignal));
        if (stats.state === 'retrying') stats.setState('running');
        if (!batch) break;
        // An empty batch still moves a position (a cursor's frontier): it is acknowledged in order, after the writes before it.
        if (batch.messages.length === 0 && queue.length === 0 && !source.durablePosition) {
          await batch.ack();
          continue;
        }
        read += batch.messages.length;
        stats.rowsRead += batch.messages.length;
        queue.push(batch);
        notifyWriter();
      }
    } catch (e) {
      if (!(e instanceof StoppedWhileRetrying)) readerError = e;
    } finally {
      readerDone = true;
      notifyWriter();
    }
  })();

  let acks: Promise<void> = Promise.resolve();
  let ackError: unknown;
  let writerError: unknown;
  let written = 0;
  // A source that keeps a position (cursor_id, deletes) gets each batch acknowledged before the next
  // is written, so a crash re-delivers at most one batch. Otherwise the writes of an append-only
  // sink may overlap; they are still acknowledged in batch order.
  const strict = source.durablePosition;
  const concurrency = strict ? 1 : Math.max(1, o.sink.concurrency ?? 1);
  type Flight = { batch: SourceBatch; done: Promise<{ dead: number; replies: Reply[] | void } | { error: unknown }>; finished: boolean };
  const flights: Flight[] = [];

  const settle = async (f: Flight): Promise<boolean> => {
    const r = await f.done;
    if ('error' in r) {
      if (f.batch.fail && !(r.error instanceof StoppedWhileRetrying)) {
        // The source answers the failure (HTTP 502/422) and the run goes on.
        stats.warn(`a batch of ${f.batch.messages.length} could not be written: ${(r.error as Error).message}`);
        await f.batch.fail(r.error).catch(() => {});
        return true;
      }
      if (!(r.error instanceof StoppedWhileRetrying)) writerError ??= r.error;
      return false;
    }
    if (writerError !== undefined) return false;
    const { batch } = f;
    const delivered = batch.messages.length - r.dead;
    written += delivered;
    stats.rowsWritten += delivered;
    if (batch.messages.length) stats.batches++;
    for (const m of batch.messages) stats.bytesWritten += m.byteLength;
    acks = acks.then(async () => {
      if (ackError !== undefined) return;
      try {
        const replies = r.replies ?? undefined;
        await withRetry(() => batch.ack(replies), { ...retryPolicy(o.stop), maxRetries: batch.ackRetryable === false ? 0 : Math.min(o.maxRetries, 10) });
        if (batch.position !== undefined) stats.position = batch.position;
      } catch (e) {
        // A failed ack moves no position: the batch will be delivered again, which at-least-once allows.
        if (isRetryable(e) || e instanceof StoppedWhileRetrying) stats.warn(`could not record progress (will re-deliver after a restart): ${(e as Error).message}`);
        else ackError = e;
      }
    });
    return true;
  };

  try {
    for (;;) {
      // Finished writes are acknowledged as soon as they finish, in order, even while no batch waits.
      while (flights.length && flights[0]!.finished) {
        const f = flights.shift()!;
        if (!(await settle(f))) queue.unshift(f.batch);
        stats.inFlight = queue.length + flights.length;
      }
      if (queue.length === 0 && !readerDone) {
        await Promise.race([new Promise<void>((r) => (wake = r)), ...(flights.length ? [flights[0]!.done] : [])]);
        continue;
      }
      if (stopped() || ackError !== undefined || writerError !== undefined) break;
      const batch = queue.shift();
      if (!batch) break;
      notifyReader();
      if (strict) await acks;
      // A source that answers failures itself gets few retries: its clients are waiting.
      const retry = batch.fail ? { ...retryPolicy(o.stop), maxRetries: Math.min(o.maxRetries, 2) } : retryPolicy(o.stop);
      const rejectTo = source.rejectMessage ? (m: Message, e: Error) => source.rejectMessage!(m, e) : undefined;
      const done = deliver(batch.messages, { sink, deadLetter: o.deadLetter, rejectTo, retry, stats }).then(
        async ({ replies, dead }) => {
          if (stats.state === 'retrying') stats.setState('running');
          if (replies && o.onReplies) await o.onReplies(batch.messages, replies);
          return { dead, replies };
        },
        (error: unknown) => ({ error }),
      );
      const flight: Flight = { batch, done, finished: false };
      void done.then(() => (flight.finished = true));
      flights.push(flight);
      stats.inFlight = queue.length + flights.length;
      while (flights.length >= concurrency) {
        const f = flights.shift()!;
        if (!(await settle(f))) queue.unshift(f.batch);
      }
      stats.inFlight = queue.length + flights.length;
    }
    // Finish what is in flight, in order; after a failure the rest is given back.
    while (flights.length) {
      const f = flights.shift()!;
      if (!(await settle(f))) queue.unshift(f.batch);
    }
  } finally {
    internal.abort();
    notifyReader();
    await reader;
    await acks;
    for (const b of queue.splice(0)) await b.release?.().catch(() => {});
    stats.inFlight = 0;
  }
  const failure = writerError ?? ackError ?? readerError;
  if (failure !== undefined) throw failure instanceof BridgeError ? failure.on(failure === readerError ? 'source' : 'sink') : failure;
  return { rows: written, stopped: o.stop.aborted };
}
