import { redact } from '../config/redact.js';
import { BridgeError, isBridgeError, rejectedError } from '../core/errors.js';
import { Message } from '../core/message.js';
import type { CommitPosition, Reply, Sink, SourceBatch } from '../core/route.js';
import type { StatsHub } from '../stats/hub.js';
import { withRetry, type RetryPolicy } from './retry.js';

const isRejected = (e: unknown): e is BridgeError => isBridgeError(e) && e.kind === 'rejected';

export interface DeliverOptions {
  sink: Sink;
  deadLetter: Sink | undefined;
  /** Without a dead-letter endpoint: answer a rejected message instead of stopping (HTTP sources). */
  rejectTo?: ((m: Message, error: Error) => Promise<void>) | undefined;
  retry: RetryPolicy;
  stats: StatsHub;
}

interface IsolateOptions extends DeliverOptions {
  /** Messages dead-lettered, and messages written, while isolating. */
  counter: { dead: number; written: number };
}

/** The message as it goes to the dead-letter endpoint: same id, the sink's error in metadata. */
function deadLetterOf(m: Message, error: Error): Message {
  // A peer may echo request headers (credentials) in its error text: scrubbed before it is stored.
  const out = new Message(m.payload, { ...m.metadata, 'bridge.error': redact(error.message), 'bridge.error_kind': 'rejected' }, undefined, m.id);
  out.isJson = m.isJson;
  out.isText = m.isText;
  return out;
}

/**
 * Writes a batch as rows when both ends can (no message per row), else as messages. A batch of rows
 * the sink rejects is written again as messages, which finds and names the rejected one.
 */
export async function deliverBatch(batch: SourceBatch, o: DeliverOptions): Promise<{ replies: Reply[] | void; dead: number }> {
  const rows = batch.rows;
  // A sink that keeps positions commits the batch's with its rows (exactly once).
  const commit = o.sink.savePosition ? batch.commit : undefined;
  // A part of a transaction in progress goes into the one the sink holds for it, not retried: on a failure the source reads that transaction again, whole (batch.fail).
  if (batch.held) {
    await o.sink.writeHeld!(batch.messages, batch.held, commit);
    return { replies: undefined, dead: 0 };
  }
  if (rows && rows.count > 0 && o.sink.writeRows) {
    try {
      if (await withRetry(() => o.sink.writeRows!(rows, commit), o.retry)) return { replies: undefined, dead: 0 };
    } catch (e) {
      if (!isRejected(e)) throw e;
    }
    await rows.restore?.();
  }
  if (commit && batch.messages.length === 0) {
    await withRetry(() => o.sink.savePosition!(commit), o.retry);
    return { replies: [], dead: 0 };
  }
  return deliver(batch.messages, o, commit);
}

/**
 * Writes a batch (retrying transient failures). When the sink rejects it: with a dead-letter
 * endpoint, the batch is split until the rejected messages are isolated, those go to the
 * dead-letter endpoint and the rest is written; without one, the culprit is found by probing
 * (nothing kept) and the error names it.
 */
export async function deliver(messages: Message[], o: DeliverOptions, commit?: CommitPosition): Promise<{ replies: Reply[] | void; dead: number }> {
  if (messages.length === 0) return { replies: [], dead: 0 };
  try {
    return { replies: await withRetry(() => o.sink.write(messages, commit), o.retry), dead: 0 };
  } catch (e) {
    if (!isRejected(e)) throw e;
    if (o.deadLetter || o.rejectTo) {
      const counter = { dead: 0, written: 0 };
      try {
        const replies = await isolate(messages, e, { ...o, counter });
        // The parts went in transactions of their own; the position follows them (a kill between re-sends the batch).
        if (commit) await withRetry(() => o.sink.savePosition!(commit), o.retry);
        return { replies, dead: counter.dead };
      } catch (failure) {
        // Parts of the batch were committed before the failure: the summary counts what was written.
        o.stats.rowsWritten += counter.written;
        throw failure;
      }
    }
    // Parts of a batch an HTTP sink delivered before one message was refused: counted, as committed.
    o.stats.rowsWritten += o.sink.deliveredOf?.(messages) ?? 0;
    if (e.messageId === undefined && o.sink.locate) {
      const found = await o.sink.locate(messages).catch(() => undefined);
      if (found) {
        const m = messages[found.index]!;
        throw rejectedError(`message ${m.idHex} was rejected: ${found.error.message}`, found.error, m.idHex);
      }
    }
    throw e;
  }
}

async function tryWrite(messages: Message[], o: IsolateOptions): Promise<Reply[]> {
  try {
    const r = await withRetry(() => o.sink.write(messages), o.retry);
    o.counter.written += messages.length;
    return r ?? new Array<Reply>(messages.length);
  } catch (e) {
    if (!isRejected(e)) throw e;
    return isolate(messages, e, o);
  }
}

async function isolate(messages: Message[], error: BridgeError, o: IsolateOptions): Promise<Reply[]> {
  // A rejection that names its message (a value that could not be converted) needs no search.
  const named = error.messageId === undefined ? -1 : messages.findIndex((m) => m.idHex === error.messageId);
  if (messages.length === 1 || named >= 0) {
    const i = named >= 0 ? named : 0;
    if (o.deadLetter) {
      await withRetry(() => o.deadLetter!.write([deadLetterOf(messages[i]!, error)]), o.retry);
      o.stats.deadLettered++;
      o.stats.warn(`message ${messages[i]!.idHex} went to the dead-letter endpoint: ${error.message}`);
    } else await o.rejectTo!(messages[i]!, error);
    o.counter.dead++;
    const before = i > 0 ? await tryWrite(messages.slice(0, i), o) : [];
    const after = i + 1 < messages.length ? await tryWrite(messages.slice(i + 1), o) : [];
    return [...before, undefined, ...after];
  }
  const mid = messages.length >> 1;
  return [...(await tryWrite(messages.slice(0, mid), o)), ...(await tryWrite(messages.slice(mid), o))];
}
