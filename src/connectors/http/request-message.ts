import { isBridgeError } from '../../core/errors.js';
import { Message } from '../../core/message.js';
import { pathOf } from './admission.js';
import type { Outcome, Req } from './responder.js';

/** A request body (or one streamed item) as a message: text for text-like types, bytes otherwise. */
export function requestMessage(body: string | Buffer, req: Req, id: bigint | undefined): Message {
  const type = String(req.headers['content-type'] ?? '');
  const text = /json|text|ndjson|event-stream/i.test(type) || type === '';
  const meta: Record<string, string> = { 'http.method': String(req.method), 'http.path': pathOf(req) };
  if (type) meta['http.content_type'] = type;
  return new Message(text && Buffer.isBuffer(body) ? body.toString('utf8') : body, meta, undefined, id);
}

/** decisions §7: 422 for a rejection, 502 for a transient sink failure. */
export function outcomeOf(e: unknown): Outcome {
  if (isBridgeError(e) && e.kind === 'rejected') return { status: 422, error: e.message };
  return { status: 502, error: `the sink failed: ${(e as Error)?.message ?? String(e)}` };
}
