import type { Message } from '../../core/message.js';
import { carrierOf } from './client-gone.js';
import { IdempotencyKeys } from './idempotency.js';
import { requestMessage } from './request-message.js';
import { BodyNotText } from './text-body.js';
import type { Outcome, Req, Res } from './responder.js';
import type { StreamIntake } from './streamed-request.js';

/** What a whole-body request needs from the HTTP source, beyond what a streamed one does. */
export interface SingleIntake extends StreamIntake {
  /** Idempotency-Key outcomes (undefined: keys are not honoured, as with fire_and_forget). */
  keys: IdempotencyKeys | undefined;
  /** The sink's inline write, when it answers requests directly (lookups). */
  inline(): ((m: Message) => Promise<Outcome>) | undefined;
}

/**
 * One request, one message: answered once the sink confirmed it (202 at once with
 * fire_and_forget). With an Idempotency-Key header, a repeat of a request already written is
 * answered with the first one's outcome (`idempotent-replayed: true`) and not written again.
 */
export async function receiveSingle(s: SingleIntake, req: Req, res: Res, id: bigint | undefined): Promise<void> {
  const body = await s.body(req, res);
  if (body === undefined) return;
  let m: Message;
  try {
    m = requestMessage(body, req, id);
  } catch (e) {
    if (e instanceof BodyNotText) return s.responder.error(req, res, e.status, e.message);
    throw e;
  }
  const key = req.headers['idempotency-key'];
  if (s.keys === undefined || typeof key !== 'string' || key === '') return write(s, req, res, m);
  const digest = IdempotencyKeys.digest(body);
  const earlier = await s.keys.earlier(key, digest, s.fields.request_timeout_ms);
  if (earlier && 'replay' in earlier) return s.responder.answer(req, res, earlier.replay, earlier.outcome, { 'idempotent-replayed': 'true' });
  if (earlier) return s.responder.error(req, res, earlier.status, earlier.error, m.idHex);
  return write(s, req, res, m, (final) => s.keys!.remember(key, digest, m, final));
}

async function write(s: SingleIntake, req: Req, res: Res, m: Message, track?: (final: Promise<Outcome>) => void): Promise<void> {
  const r = s.responder;
  const inline = s.inline();
  if (inline) {
    const outcome = inline(m);
    track?.(outcome);
    return r.answer(req, res, m, await outcome);
  }
  if (s.queue.length >= s.fields.internal_buffer_size) return r.error(req, res, 503, 'the internal buffer is full (internal_buffer_size)', m.idHex, { 'retry-after': '1' });
  if (s.fields.fire_and_forget) {
    if (!(await s.accept(m))) return r.error(req, res, 503, 'the spool is full (spool_max_bytes)', m.idHex, { 'retry-after': '1' });
    return r.send(req, res, 202, JSON.stringify({ message_id: m.idHex }), { 'content-type': 'application/json' });
  }
  const { answer, final } = s.queue.submit(m, s.fields.request_timeout_ms, carrierOf(req));
  track?.(final);
  return r.answer(req, res, m, await answer);
}
