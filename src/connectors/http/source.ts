import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { Endpoint } from '../../config/endpoint.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { BridgeError, configError, isBridgeError } from '../../core/errors.js';
import { parseId } from '../../core/ids.js';
import { Message } from '../../core/message.js';
import type { PlanItem, Reply, Source, SourceBatch, SourceContext } from '../../core/route.js';
import { ItemSplitter, readBody, streamFormat } from './body.js';
import { BodyTooLarge, compress, decompress, negotiate } from './codecs.js';
import { Wakeup } from '../../pipeline/sleep.js';
import { createListener, type Listener, type Protocol } from './listener.js';

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

/** How one message ended: the sink's answer, or an error with its status. */
type Outcome = { reply: Reply } | { status: number; error: string };

interface Entry {
  m: Message;
  done(o: Outcome): void;
}

interface Fields {
  method?: string;
  path?: string;
  basic_auth?: unknown[];
  custom_headers?: Record<string, unknown>;
  tls?: TlsConfig;
  request_timeout_ms: number;
  compression_enabled: boolean;
  compression_threshold_bytes: number;
  concurrency_limit: number;
  fire_and_forget: boolean;
  inline_response_fast_path: boolean;
  internal_buffer_size: number;
  message_id_header: string;
  receive_streamable: boolean;
  server_protocol: Protocol;
  max_body_bytes: number;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * The HTTP consumer: a listener whose requests become messages (decisions §7). Requests are queued
 * and taken by the pipeline as one batch whatever has arrived (many requests, one multi-row
 * insert); each request is answered only once its own messages are confirmed.
 */
export class HttpSource implements Source {
  readonly durablePosition = false;
  private listener: Listener | undefined;
  private queue: Entry[] = [];
  private readonly entries = new Map<Message, Entry>();
  private readonly wakeup = new Wakeup();
  private accepting = true;
  private active = 0;
  private inline: ((ms: Message[]) => Promise<Reply[] | void>) | undefined;
  private readonly f: Fields;
  private readonly auth: Buffer | undefined;
  private readonly customHeaders: Record<string, string> | undefined;
  readonly statuses: Record<string, number> = {};
  requests = 0;
  address = '';
  private ready!: Promise<void>;
  private markReady!: () => void;
  private ctx!: SourceContext;

  constructor(private readonly ep: Endpoint) {
    this.f = ep.fields as unknown as Fields;
    if (this.f.basic_auth !== undefined) {
      const [user, pass] = this.f.basic_auth;
      if (this.f.basic_auth.length !== 2 || typeof user !== 'string' || typeof pass !== 'string') throw configError('basic_auth must be ["user","password"]');
      this.auth = digest(`Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`);
    }
    if (this.f.path === undefined && ep.url && ep.url.path !== '') this.f.path = `/${ep.url.path}`;
    if (this.f.custom_headers) this.customHeaders = Object.fromEntries(Object.entries(this.f.custom_headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
  }

  async open(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    this.ready = new Promise<void>((r) => (this.markReady = r));
    const u = this.ep.url!;
    if (!u.port) throw configError('the listen address needs a port: <host>:<port>, e.g. 0.0.0.0:8080');
    this.listener = createListener((req, res) => void this.handle(req, res), this.f.server_protocol, this.f.tls, this.f.receive_streamable);
    await new Promise<void>((resolve, reject) => {
      this.listener!.server.once('error', (e: NodeJS.ErrnoException) =>
        reject(new BridgeError(e.code === 'EADDRINUSE' ? 'config' : 'connect', `cannot listen on ${u.host}:${u.port}: ${e.code === 'EADDRINUSE' ? 'the address is in use' : e.message}`, { cause: e })),
      );
      this.listener!.server.listen(u.port, u.host || '0.0.0.0', () => resolve());
    });
    const a = this.listener.server.address() as AddressInfo;
    this.address = `${a.address}:${a.port}`;
    if (ctx.dryRun) await this.listener.close();
  }

  /** Requests that arrived while the sink was still opening were held; from now on they are served. */
  start(): void {
    this.markReady();
    (this.ctx.info ?? this.ctx.warn)(`listening on ${this.f.tls?.cert_file ? 'https' : 'http'}://${this.address}${this.f.path ?? '/'}`);
  }

  attachInline(write: (messages: Message[]) => Promise<Reply[] | void>): void {
    if (this.f.inline_response_fast_path && !this.f.fire_and_forget && !this.f.receive_streamable) this.inline = write;
  }

  private async send(req: Req, res: Res, status: number, body?: Buffer | string, headers: Record<string, string> = {}): Promise<void> {
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
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
    // One writeHead with every header: cheaper than a setHeader each, per request.
    res.writeHead(status, this.customHeaders ? { ...this.customHeaders, ...h } : h);
    if (payload) res.end(payload);
    else res.end();
  }

  private error(req: Req, res: Res, status: number, message: string, id?: string, headers: Record<string, string> = {}): Promise<void> {
    return this.send(req, res, status, JSON.stringify({ error: message, message_id: id ?? null }), { 'content-type': 'application/json', ...headers });
  }

  private async handle(req: Req, res: Res): Promise<void> {
    await this.ready;
    this.requests++;
    const pathname = pathOf(req);
    if (this.f.path !== undefined && pathname !== this.f.path) return this.error(req, res, 404, `no route for ${pathname}`);
    if (this.f.method !== undefined && req.method !== this.f.method.toUpperCase()) return this.error(req, res, 405, `method ${req.method} not allowed`, undefined, { allow: this.f.method.toUpperCase() });
    if (this.auth) {
      const given = digest(String(req.headers.authorization ?? ''));
      if (!timingSafeEqual(given, this.auth)) return this.error(req, res, 401, 'authentication required', undefined, { 'www-authenticate': 'Basic realm="bridge", charset="UTF-8"' });
    }
    if (!this.accepting) return this.error(req, res, 503, 'shutting down', undefined, { 'retry-after': '1', connection: 'close' });
    if (this.active >= this.f.concurrency_limit) return this.error(req, res, 503, 'too many requests in flight (concurrency_limit)', undefined, { 'retry-after': '1' });
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > this.f.max_body_bytes) return this.error(req, res, 413, `body of ${length} bytes is over max_body_bytes (${this.f.max_body_bytes})`);
    const idHeader = req.headers[this.f.message_id_header.toLowerCase()];
    const id = typeof idHeader === 'string' ? parseId(idHeader) : undefined;
    this.active++;
    try {
      if (this.f.receive_streamable) await this.streamed(req, res, id);
      else await this.single(req, res, id);
    } finally {
      this.active--;
      this.notify();
    }
  }

  private message(body: string | Buffer, req: Req, id: bigint | undefined): Message {
    const type = String(req.headers['content-type'] ?? '');
    const text = /json|text|ndjson|event-stream/i.test(type) || type === '';
    const meta: Record<string, string> = { 'http.method': String(req.method), 'http.path': pathOf(req) };
    if (type) meta['http.content_type'] = type;
    return new Message(text && Buffer.isBuffer(body) ? body.toString('utf8') : body, meta, undefined, id);
  }

  private async body(req: Req, res: Res): Promise<Buffer | undefined> {
    try {
      const raw = await readBody(req as never, this.f.max_body_bytes);
      const encoding = req.headers['content-encoding'];
      return encoding === undefined ? raw : await decompress(String(encoding), raw, this.f.max_body_bytes);
    } catch (e) {
      if (e instanceof BodyTooLarge) await this.error(req, res, 413, e.message);
      else await this.error(req, res, 400, `the body cannot be read: ${(e as Error).message}`);
      return undefined;
    }
  }

  private async single(req: Req, res: Res, id: bigint | undefined): Promise<void> {
    const body = await this.body(req, res);
    if (body === undefined) return;
    const m = this.message(body, req, id);
    if (this.inline) return this.answer(req, res, m, await this.runInline(m));
    if (this.queue.length >= this.f.internal_buffer_size) return this.error(req, res, 503, 'the internal buffer is full (internal_buffer_size)', m.idHex, { 'retry-after': '1' });
    if (this.f.fire_and_forget) {
      this.enqueue(m, () => {});
      return this.send(req, res, 202, JSON.stringify({ message_id: m.idHex }), { 'content-type': 'application/json' });
    }
    const outcome = await this.wait(m);
    return this.answer(req, res, m, outcome);
  }

  private async runInline(m: Message): Promise<Outcome> {
    try {
      const replies = await this.inline!([m]);
      return { reply: replies ? replies[0] : undefined };
    } catch (e) {
      return outcomeOf(e);
    }
  }

  /** Enqueues a message and resolves with its outcome, or a 504 after request_timeout_ms. */
  private wait(m: Message): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => resolve({ status: 504, error: `no reply within request_timeout_ms (${this.f.request_timeout_ms} ms)` }), this.f.request_timeout_ms);
      this.enqueue(m, (o) => {
        clearTimeout(timer);
        resolve(o);
      });
    });
  }

  private enqueue(m: Message, done: (o: Outcome) => void): void {
    const entry: Entry = {
      m,
      done: (o) => {
        this.entries.delete(m);
        done(o);
      },
    };
    this.entries.set(m, entry);
    this.queue.push(entry);
    this.notify();
  }

  private async answer(req: Req, res: Res, m: Message, o: Outcome): Promise<void> {
    if ('status' in o) return this.error(req, res, o.status, o.error, m.idHex);
    const r = o.reply;
    if (!r) return this.send(req, res, 204, undefined, { 'message-id': m.idHex });
    if (r.metadata?.['bridge.lookup'] === 'not_found') return this.error(req, res, 404, 'not found', m.idHex);
    const type = r.isJson ? 'application/json' : (r.metadata?.['http.content_type'] ?? 'application/octet-stream');
    return this.send(req, res, 200, r.bytes(), { 'content-type': type, 'message-id': m.idHex });
  }

  private async streamed(req: Req, res: Res, id: bigint | undefined): Promise<void> {
    const pending: Promise<Outcome>[] = [];
    let n = 0;
    const push = async (item: string | Buffer): Promise<void> => {
      // A long stream waits for room in the buffer instead of failing (backpressure to the client).
      while (this.queue.length >= this.f.internal_buffer_size) await new Promise((r) => setTimeout(r, 5));
      const m = this.message(item, req, id === undefined ? undefined : id + BigInt(n));
      n++;
      if (this.f.fire_and_forget) this.enqueue(m, () => {});
      else pending.push(this.wait(m));
    };
    const splitter = new ItemSplitter(streamFormat(req.headers['content-type'] as string | undefined), push);
    try {
      const encoding = String(req.headers['content-encoding'] ?? '');
      if (encoding && encoding !== 'identity') {
        // Compressed streams are decompressed whole, then split.
        const body = await this.body(req, res);
        if (body === undefined) return;
        await splitter.write(body);
      } else {
        let size = 0;
        for await (const chunk of req as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > this.f.max_body_bytes) throw new BodyTooLarge();
          await splitter.write(chunk);
        }
      }
      await splitter.end();
    } catch (e) {
      return this.error(req, res, e instanceof BodyTooLarge ? 413 : 400, (e as Error).message);
    }
    if (this.f.fire_and_forget) return this.send(req, res, 202, JSON.stringify({ messages: n }), { 'content-type': 'application/json' });
    const outcomes = await Promise.all(pending);
    const failed = outcomes.find((o): o is { status: number; error: string } => 'status' in o);
    if (failed) return this.error(req, res, failed.status, failed.error);
    return this.send(req, res, 204, undefined, { 'x-bridge-messages': String(n) });
  }

  private notify(): void {
    this.wakeup.notify();
  }

  async next(max: number, signal: AbortSignal): Promise<SourceBatch | null> {
    for (;;) {
      if (this.queue.length > 0) {
        const taken = this.queue.splice(0, max);
        return {
          messages: taken.map((e) => e.m),
          ack: async (replies) => taken.forEach((e, i) => e.done({ reply: replies?.[i] })),
          fail: async (error) => {
            const o = outcomeOf(error);
            for (const e of taken) e.done(o);
          },
          release: async () => {
            for (const e of taken) e.done({ status: 503, error: 'the server is stopping' });
          },
        };
      }
      if (!this.accepting && this.active === 0) return null;
      if (signal.aborted) return null;
      await this.wakeup.wait(signal);
    }
  }

  async rejectMessage(m: Message, error: Error): Promise<void> {
    this.entries.get(m)?.done({ status: 422, error: error.message });
  }

  stopAccepting(): void {
    this.accepting = false;
    void this.listener?.close();
    this.notify();
  }

  async close(): Promise<void> {
    this.accepting = false;
    await this.listener?.close();
    for (const e of this.queue.splice(0)) e.done({ status: 503, error: 'the server is stopping' });
  }

  requestStats(): { requests: number; statuses: Record<string, number> } {
    return { requests: this.requests, statuses: { ...this.statuses } };
  }

  async plan(): Promise<PlanItem[]> {
    const f = this.f;
    return [
      { label: 'listen', value: `${f.tls?.cert_file ? 'https' : 'http'}://${this.ep.url!.host}:${this.ep.url!.port}${f.path ?? ' (any path)'}, ${f.server_protocol}` },
      {
        label: 'requests',
        value: `${f.method ?? 'any method'}${f.basic_auth ? ', basic auth' : ''}${f.receive_streamable ? ', streamed bodies (one message per item)' : ''}${f.fire_and_forget ? ', answered 202 at once' : ', answered after the sink confirmed'}`,
      },
    ];
  }
}

/** The request path without its query (cheaper than a URL object per request). */
function pathOf(req: Req): string {
  const u = req.url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? u : u.slice(0, q);
}

/** decisions §7: 422 for a rejection, 502 for a transient sink failure. */
function outcomeOf(e: unknown): Outcome {
  if (isBridgeError(e) && e.kind === 'rejected') return { status: 422, error: e.message };
  return { status: 502, error: `the sink failed: ${(e as Error)?.message ?? String(e)}` };
}
