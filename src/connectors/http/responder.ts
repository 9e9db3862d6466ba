import type http from 'node:http';
import type http2 from 'node:http2';
import type { Message } from '../../core/message.js';
import type { Reply } from '../../core/route.js';
import { LatencyHistogram } from '../../core/latency.js';
import { compress, negotiate } from './codecs.js';

export type Req = http.IncomingMessage | http2.Http2ServerRequest;
export type Res = http.ServerResponse | http2.Http2ServerResponse;

/** How one message ended: the sink's answer, or an error with its status. */
export type Outcome = { reply: Reply } | { status: number; error: string };

const ARRIVED = Symbol('bridge.arrived');
type Arrived = Req & { [ARRIVED]?: number };

/** The client went away before its message was written, and it never will be: nothing to answer. */
export const CANCELLED: Outcome = { status: 499, error: 'the client went away before its message was written' };

/**
 * Writes the listener's answers (decisions §7): one writeHead with every header, responses
 * compressed per Accept-Encoding above the threshold, JSON error bodies, counts by status.
 */
export class Responder {
  readonly statuses: Record<string, number> = {};
  readonly latency = new LatencyHistogram();
  /** When a request arrived (its answer's latency is measured from there): kept on the request, a WeakMap entry per request cost more. */
  arrival(req: Req): void {
    (req as Arrived)[ARRIVED] = performance.now();
  }

  constructor(
    private readonly f: { compression_enabled: boolean; compression_threshold_bytes: number },
    private readonly customHeaders: Record<string, string> | undefined,
  ) {}

  /** A request the client cancelled before its body ended: nothing is delivered or answered, only counted. */
  cancelled(req: Req): void {
    this.count(req, 'cancelled');
  }

  /** An answer Node's server wrote by itself (a 408 for a request too slow): counted like the others. */
  answeredByServer(status: number): void {
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }

  private count(req: Req, status: number | string): void {
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    const at = (req as Arrived)[ARRIVED];
    if (at !== undefined) this.latency.observe((performance.now() - at) / 1000);
  }

  async send(req: Req, res: Res, status: number, body?: Buffer | string, headers: Record<string, string> = {}): Promise<void> {
    this.count(req, status);
    if (res.headersSent || (res as http.ServerResponse).destroyed) return;
    let payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    const h: Record<string, string> = { ...headers };
    if (payload && this.f.compression_enabled && payload.length >= this.f.compression_threshold_bytes) {
      const codec = negotiate(req.headers['accept-encoding'] as string | undefined);
      if (codec) {
        payload = await compress(codec, payload);
        h['content-encoding'] = codec;
        h.vary = 'accept-encoding';
      }
    }
    if (payload) h['content-length'] = String(payload.length);
    res.writeHead(status, this.customHeaders ? { ...this.customHeaders, ...h } : h);
    if (payload) res.end(payload);
    else res.end();
  }

  error(req: Req, res: Res, status: number, message: string, id?: string, headers: Record<string, string> = {}): Promise<void> {
    return this.send(req, res, status, JSON.stringify({ error: message, message_id: id ?? null }), { 'content-type': 'application/json', ...headers });
  }

  /** The answer to one message: the sink's reply (200), nothing (204), not found (404), or the error. */
  answer(req: Req, res: Res, m: Message, o: Outcome, headers: Record<string, string> = {}): Promise<void> {
    if (o === CANCELLED) return Promise.resolve(this.cancelled(req));
    if ('status' in o) return this.error(req, res, o.status, o.error, m.idHex, headers);
    const r = o.reply;
    if (!r) return this.send(req, res, 204, undefined, { 'message-id': m.idHex, ...headers });
    if (r.metadata?.['bridge.lookup'] === 'not_found') return this.error(req, res, 404, 'not found', m.idHex, headers);
    const type = r.isJson ? 'application/json' : (r.metadata?.['http.content_type'] ?? 'application/octet-stream');
    return this.send(req, res, 200, r.bytes(), { 'content-type': type, 'message-id': m.idHex, ...headers });
  }
}
