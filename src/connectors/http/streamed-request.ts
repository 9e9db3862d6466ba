import type { Readable } from 'node:stream';
import type { Message } from '../../core/message.js';
import { endedByClient, ItemSplitter, RequestCancelled, streamFormat } from './body.js';
import { BodyTooLarge } from './codecs.js';
import type { RequestQueue } from './request-queue.js';
import { messagesOf } from './request-message.js';
import { BodyNotText, declaresJson, isTextType, StreamText } from './text-body.js';
import type { Outcome, Req, Res, Responder } from './responder.js';

/** What a streamed request needs from the HTTP source. */
export interface StreamIntake {
  fields: { internal_buffer_size: number; fire_and_forget: boolean; request_timeout_ms: number; max_body_bytes: number };
  queue: RequestQueue;
  responder: Responder;
  /** fire_and_forget: queue (and spool) the message; false when the spool is full. */
  accept(m: Message): Promise<boolean>;
  /** The whole body, decompressed within max_body_bytes; undefined once an error was answered. */
  body(req: Req, res: Res): Promise<Buffer | undefined>;
  /** Settles when the listener stops: streams being read are ended there (they have no request timeout). */
  stopping: Promise<void>;
}

/** A stream still arriving when the listener stopped: answered 503 with what of it was written. */
class ListenerStopping extends Error {
  constructor() {
    super('the listener is stopping: the stream was read up to here; send the items after those written again');
  }
}

/**
 * receive_streamable: one message per NDJSON line, SSE event or chunk, read as the body arrives.
 * Answered 204 once every item is confirmed (202 at once with fire_and_forget); the first failed
 * item's status otherwise. Items are written as they arrive, so a failed request may have written
 * some: its answer waits for every item that became a message and says how many were written
 * (x-bridge-messages-written, and `written` in the JSON body) and which failed, so that a client
 * neither retries what landed nor takes it for lost.
 */
export async function receiveStreamed(s: StreamIntake, req: Req, res: Res, id: bigint | undefined): Promise<void> {
  const r = s.responder;
  const f = s.fields;
  const pending: Promise<Outcome>[] = [];
  let n = 0;
  const message = messagesOf(req);
  const push = async (item: string | Buffer): Promise<void> => {
    // A long stream waits for room in the buffer instead of failing (backpressure to the client).
    while (s.queue.length >= f.internal_buffer_size) await s.queue.room();
    const m = message(item, id === undefined ? undefined : id + BigInt(n));
    n++;
    if (f.fire_and_forget) {
      if (!(await s.accept(m))) throw new Error('the spool is full (spool_max_bytes)');
    } else pending.push(s.queue.wait(m, f.request_timeout_ms));
  };
  const type = String(req.headers['content-type'] ?? '');
  let text: StreamText | undefined;
  try {
    const format = streamFormat(type);
    text = format !== 'chunks' || isTextType(type) ? new StreamText(type) : undefined;
  } catch (e) {
    if (e instanceof BodyNotText) return r.error(req, res, e.status, e.message);
    throw e;
  }
  const splitter = new ItemSplitter(streamFormat(type), push, text);
  // A body declared JSON has no items but itself: cut where the socket reads ended, a 287 KB document
  // became six messages of its pieces (answered 204). It is read whole, one message, JSON or 400.
  const whole = streamFormat(type) === 'chunks' && declaresJson(type);
  try {
    const encoding = String(req.headers['content-encoding'] ?? '');
    if (whole || (encoding && encoding !== 'identity')) {
      // Compressed streams are decompressed whole (within max_body_bytes), then split.
      const body = await s.body(req, res);
      if (body === undefined) return;
      if (whole) await push(body);
      else await splitter.write(body);
    } else {
      let size = 0;
      // Not destroyed when an item is refused (BodyTooLarge, not in its charset): a destroyed request
      // reads as cancelled and was never answered (the client waited for its 413 or 400 until its own timeout).
      // A client streaming without end kept a stopped listener running (40 s, then a second signal killed it unanswered).
      const chunks = ((req as Readable).iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>)[Symbol.asyncIterator]();
      const stop = s.stopping.then((): typeof STOPPED => STOPPED);
      for (;;) {
        const next = await Promise.race([chunks.next(), stop]);
        if (next === STOPPED) throw new ListenerStopping();
        if (next.done) break;
        const chunk = next.value;
        size += chunk.length;
        if (size > f.max_body_bytes) throw new BodyTooLarge();
        await splitter.write(chunk);
      }
      // The items that ended are messages already; an unterminated last one of a cancelled stream is not.
      if (!(await endedByClient(req as never))) throw new RequestCancelled();
    }
    await splitter.end();
  } catch (e) {
    if (e instanceof RequestCancelled || (req as { aborted?: boolean }).aborted) return r.cancelled(req);
    // The rest of a refused body is read and dropped, as readBody does past max_body_bytes, until
    // the answer is out: then an HTTP/1.1 connection closes, or an endless stream would be read forever.
    (req as Readable).resume();
    const close: Record<string, string> = (req as { httpVersionMajor?: number }).httpVersionMajor === 1 ? { connection: 'close' } : {};
    const status = e instanceof BodyTooLarge ? 413 : e instanceof BodyNotText ? e.status : e instanceof ListenerStopping ? 503 : 400;
    if (f.fire_and_forget) return r.error(req, res, status, (e as Error).message, undefined, close);
    return partial(r, req, res, await Promise.all(pending), { status, error: (e as Error).message }, close);
  }
  if (f.fire_and_forget) return r.send(req, res, 202, JSON.stringify({ messages: n }), { 'content-type': 'application/json' });
  const outcomes = await Promise.all(pending);
  if (outcomes.some((o) => 'status' in o)) return partial(r, req, res, outcomes);
  return r.send(req, res, 204, undefined, { 'x-bridge-messages': String(n) });
}

const STOPPED = Symbol('stopped');

type Failed = { status: number; error: string };

/**
 * The answer to a streamed request not wholly written: the status of what stopped it (the body
 * refused part-way, or else its first failed item), with what was written and what failed.
 */
function partial(r: Responder, req: Req, res: Res, outcomes: Outcome[], stopped?: Failed, headers: Record<string, string> = {}): Promise<void> {
  const failedItems: number[] = [];
  outcomes.forEach((o, i) => 'status' in o && failedItems.push(i + 1));
  const written = outcomes.length - failedItems.length;
  const first = failedItems.length ? (outcomes[failedItems[0]! - 1] as Failed) : undefined;
  const cause = stopped ?? { status: first!.status, error: `item ${failedItems[0]} of ${outcomes.length}: ${first!.error}` };
  const body = { error: cause.error, message_id: null, items: outcomes.length, written, failed_items: failedItems.slice(0, 100) };
  return r.send(req, res, cause.status, JSON.stringify(body), { 'content-type': 'application/json', 'x-bridge-messages-written': String(written), ...headers });
}
