import { isBridgeError } from '../../core/errors.js';
import { Message } from '../../core/message.js';
import { pathOf } from './admission.js';
import { streamFormat } from './body.js';
import { declaresJson, decodeText, isTextType, mustBeJson } from './text-body.js';
import type { Outcome, Req } from './responder.js';

/** A body declared text (text/plain, text/csv…; an SSE stream's events are sniffed, as untyped bodies are). */
const declaresText = (type: string): boolean => /^\s*text\/(?!event-stream)/i.test(type);

/** What every message of one request shares: whether bodies are text, and the metadata. */
function shapeOf(req: Req): { text: boolean; type: string; meta: Record<string, string> } {
  const type = String(req.headers['content-type'] ?? '');
  const meta: Record<string, string> = { 'http.method': String(req.method), 'http.path': pathOf(req) };
  if (type) meta['http.content_type'] = type;
  return { text: isTextType(type), type, meta };
}

/** A text body read in its charset (text-body.ts: BodyNotText when it is not in it); bytes stay bytes. */
const bodyOf = (body: string | Buffer, text: boolean, type: string): string | Buffer => (text && Buffer.isBuffer(body) ? decodeText(body, type) : body);

/** A request body as a message: text for text-like types, bytes otherwise. */
export function requestMessage(body: string | Buffer, req: Req, id: bigint | undefined): Message {
  const { text, type, meta } = shapeOf(req);
  const payload = bodyOf(body, text, type);
  if (typeof payload === 'string' && declaresJson(type)) mustBeJson(payload, `the body is declared ${type.split(';')[0]!.trim()} but`);
  const m = new Message(payload, meta, undefined, id);
  m.isText = declaresText(type);
  return m;
}

/** The messages of one streamed request: its shape worked out once, each item with its own metadata; each line of NDJSON must be JSON. */
export function messagesOf(req: Req): (body: string | Buffer, id: bigint | undefined) => Message {
  const { text, type, meta } = shapeOf(req);
  const lines = streamFormat(type) === 'ndjson';
  // A body declared JSON (not NDJSON or SSE) comes whole, as one item (streamed-request.ts).
  const document = streamFormat(type) === 'chunks' && declaresJson(type);
  let n = 0;
  return (body, id) => {
    const payload = bodyOf(body, text, type);
    n++;
    if (lines && typeof payload === 'string') mustBeJson(payload, `line ${n} of the NDJSON stream (blank lines not counted)`);
    if (document && typeof payload === 'string') mustBeJson(payload, `the body is declared ${type.split(';')[0]!.trim()} but`);
    const m = new Message(payload, { ...meta }, undefined, id);
    m.isText = declaresText(type);
    return m;
  };
}

/** decisions §7: 422 for a rejection, 502 for a transient sink failure. */
export function outcomeOf(e: unknown): Outcome {
  if (isBridgeError(e) && e.kind === 'rejected') return { status: 422, error: e.message };
  return { status: 502, error: `the sink failed: ${(e as Error)?.message ?? String(e)}` };
}
