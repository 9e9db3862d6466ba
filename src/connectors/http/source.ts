import type { AddressInfo } from 'node:net';
import type { Endpoint } from '../../config/endpoint.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { BridgeError, configError } from '../../core/errors.js';
import { parseId } from '../../core/ids.js';
import { sleep } from '../../core/wakeup.js';
import { Message } from '../../core/message.js';
import type { PlanItem, Reply, RequestStats, Source, SourceBatch, SourceContext } from '../../core/route.js';
import { Admission, pathOf } from './admission.js';
import { BodyBudget, BodyBudgetFull, readBody, RequestCancelled } from './body.js';
import { BodyTooLarge, decompress, READ_CODINGS, UnsupportedCoding } from './codecs.js';
import { createListener, type Listener, type Protocol } from './listener.js';
import { RequestQueue } from './request-queue.js';
import { outcomeOf } from './request-message.js';
import { Responder, type Outcome, type Req, type Res } from './responder.js';
import { IdempotencyKeys } from './idempotency.js';
import { receiveSingle, type SingleIntake } from './single-request.js';
import { receiveStreamed } from './streamed-request.js';
import { Spool } from './spool.js';

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
  body_buffer_bytes: number;
  headers_timeout_ms: number;
  keep_alive_timeout_ms: number;
  idempotency_window_ms: number;
  spool_dir?: string;
  spool_max_bytes: number;
}

/** fire_and_forget: how long a batch may wait to fill up (the write's latency, not the client's). */
const LINGER_MS = 10;

/**
 * The HTTP consumer: a listener whose requests become messages (decisions §7). Requests are queued
 * and taken by the pipeline as one batch whatever has arrived (many requests, one multi-row
 * insert); each request is answered only once its own messages are confirmed, or at once (202) with
 * fire_and_forget — durably when spool_dir is set. A stop answers what is in flight before closing.
 */
/** How long a stop lets streams being read (receive_streamable) end by themselves before it ends them. */
const STREAM_GRACE_MS = 2000;

export class HttpSource implements Source {
  readonly durablePosition = false;
  private listener: Listener | undefined;
  private readonly queue: RequestQueue;
  private readonly spool: Spool | undefined;
  private readonly admission: Admission;
  private readonly responder: Responder;
  private accepting = true;
  private active = 0;
  private inline: ((ms: Message[]) => Promise<Reply[] | void>) | undefined;
  private readonly f: Fields;
  /** Bodies still arriving, all requests together (one body of max_body_bytes always fits). */
  private readonly bodyBudget: BodyBudget;
  requests = 0;
  /** Fire-and-forget messages the sink rejected without a dead-letter endpoint: answered 202, then dropped. */
  rejected = 0;
  address = '';
  private ready!: Promise<void>;
  private markReady!: () => void;
  private markStopping!: () => void;
  private ctx!: SourceContext;
  /** What a request needs from the source. */
  private readonly intake: SingleIntake;

  constructor(private readonly ep: Endpoint) {
    this.f = ep.fields as unknown as Fields;
    if (this.f.path === undefined && ep.url && ep.url.path !== '') this.f.path = `/${ep.url.path}`;
    this.admission = new Admission(this.f);
    this.bodyBudget = new BodyBudget(Math.max(this.f.body_buffer_bytes, this.f.max_body_bytes));
    const custom = this.f.custom_headers ? Object.fromEntries(Object.entries(this.f.custom_headers).map(([k, v]) => [k.toLowerCase(), String(v)])) : undefined;
    this.responder = new Responder(this.f, custom);
    if (this.f.spool_dir !== undefined && !this.f.fire_and_forget) throw configError('spool_dir keeps what fire_and_forget answered 202: set fire_and_forget=true, or drop spool_dir');
    this.spool = this.f.spool_dir === undefined ? undefined : new Spool(this.f.spool_dir, this.f.spool_max_bytes);
    this.queue = new RequestQueue(this.spool);
    const keys = this.f.fire_and_forget ? undefined : new IdempotencyKeys(this.f.idempotency_window_ms);
    const inline = (m: Message): Promise<Outcome> => this.runInline(m);
    this.intake = { fields: this.f, queue: this.queue, responder: this.responder, keys, inline: () => (this.inline ? inline : undefined), accept: (m) => this.accept(m), body: (req, res) => this.body(req, res), stopping: new Promise<void>((r) => (this.markStopping = r)) };
  }

  async open(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    this.ready = new Promise<void>((r) => (this.markReady = r));
    const u = this.ep.url!;
    if (!u.port) throw configError('the listen address needs a port: <host>:<port>, e.g. 0.0.0.0:8080');
    if (this.spool && !ctx.dryRun) {
      // What an earlier run answered 202 and did not see confirmed goes first.
      const replay = await this.spool.open();
      if (replay.length) ctx.warn(`spool: ${replay.length} message${replay.length > 1 ? 's' : ''} accepted before the last stop are written first`);
      for (const m of replay) this.queue.add(m, () => {}, false);
    }
    this.listener = createListener((req, res) => void this.handle(req, res), this.f.server_protocol, this.f.tls, {
      streaming: this.f.receive_streamable,
      headersTimeoutMs: this.f.headers_timeout_ms,
      keepAliveTimeoutMs: this.f.keep_alive_timeout_ms,
      onServerAnswer: (status) => {
        this.requests++;
        this.responder.answeredByServer(status);
      },
    });
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

  private async handle(req: Req, res: Res): Promise<void> {
    this.responder.arrival(req);
    await this.ready;
    this.requests++;
    const r = this.responder;
    const refused = this.admission.check(req, pathOf(req));
    if (refused) return r.error(req, res, refused.status, refused.message, undefined, refused.headers);
    if (!this.accepting) return r.error(req, res, 503, 'shutting down', undefined, { 'retry-after': '1', connection: 'close' });
    if (this.active >= this.f.concurrency_limit) return r.error(req, res, 503, 'too many requests in flight (concurrency_limit)', undefined, { 'retry-after': '1' });
    // Node's parser undoes only chunked: 'gzip, chunked' was taken and the gzip bytes stored, answered 204 (RFC 9112 §6.1: 501).
    const coding = String(req.headers['transfer-encoding'] ?? '').split(',').map((c) => c.trim().toLowerCase()).find((c) => c !== '' && c !== 'chunked');
    if (coding) return r.error(req, res, 501, `transfer coding ${coding} is not one the listener undoes; send the body chunked (compressed bodies: Content-Encoding)`, undefined, { connection: 'close' });
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > this.f.max_body_bytes) return r.error(req, res, 413, `body of ${length} bytes is over max_body_bytes (${this.f.max_body_bytes})`);
    // Only now, admitted and within max_body_bytes: a client asking first may send its body.
    if (String(req.headers.expect ?? '').toLowerCase() === '100-continue') res.writeContinue();
    const idHeader = req.headers[this.f.message_id_header.toLowerCase()];
    const id = typeof idHeader === 'string' ? parseId(idHeader) : undefined;
    this.active++;
    try {
      if (this.f.receive_streamable) await receiveStreamed(this.intake, req, res, id);
      else await receiveSingle(this.intake, req, res, id);
    } finally {
      this.active--;
      this.queue.wakeup.notify();
    }
  }

  private async body(req: Req, res: Res): Promise<Buffer | undefined> {
    try {
      const raw = await readBody(req as never, this.f.max_body_bytes, this.bodyBudget);
      const encoding = req.headers['content-encoding'];
      return encoding === undefined ? raw : await decompress(String(encoding), raw, this.f.max_body_bytes);
    } catch (e) {
      if (e instanceof RequestCancelled) this.responder.cancelled(req);
      else if (e instanceof BodyTooLarge) await this.responder.error(req, res, 413, e.message);
      else if (e instanceof BodyBudgetFull) await this.responder.error(req, res, 503, e.message, undefined, { 'retry-after': '1', connection: 'close' });
      else if (e instanceof UnsupportedCoding) await this.responder.error(req, res, 415, e.message, undefined, { 'accept-encoding': READ_CODINGS });
      else await this.responder.error(req, res, 400, `the body cannot be read: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** fire_and_forget: queued (and with spool_dir on disk first) before the 202; false when there is no room. */
  private async accept(m: Message): Promise<boolean> {
    if (this.spool) {
      if (this.spool.full) return false;
      await this.spool.append(m);
    }
    this.queue.add(m, () => {}, false);
    return true;
  }

  private async runInline(m: Message): Promise<Outcome> {
    try {
      const replies = await this.inline!([m]);
      return { reply: replies ? replies[0] : undefined };
    } catch (e) {
      return outcomeOf(e);
    }
  }

  async next(max: number, signal: AbortSignal): Promise<SourceBatch | null> {
    for (;;) {
      // Requests whose bodies are being read in this turn of the event loop join this batch: one
      // hop instead of a batch per request when the sink is faster than the clients.
      if (this.queue.length > 0 && this.queue.length < max && this.active > 0) await new Promise((r) => setImmediate(r));
      // Clients answered 202 do not wait for the write: gather a fuller batch (fewer, larger inserts).
      if (this.f.fire_and_forget && this.queue.length > 0 && this.queue.length < max && this.accepting) await sleep(LINGER_MS, signal);
      const batch = this.queue.take(max, outcomeOf);
      if (batch) return batch;
      if (!this.accepting && this.active === 0) return null;
      if (signal.aborted) return null;
      await this.queue.wakeup.wait(signal);
    }
  }

  async rejectMessage(m: Message, error: Error): Promise<void> {
    if (await this.queue.reject(m, error)) return;
    // Answered 202 long ago: nobody to tell but the operator.
    this.rejected++;
    this.ctx.warn(`message ${m.idHex} (answered 202) was rejected by the sink and is dropped: ${error.message}; give --dead-letter <url> to keep such messages`);
  }

  stopAccepting(): void {
    this.accepting = false;
    // Streams being read get STREAM_GRACE_MS to end by themselves (a short one is answered whole), then are ended.
    setTimeout(() => this.markStopping(), STREAM_GRACE_MS).unref();
    this.listener?.stop();
    this.queue.wakeup.notify();
  }

  async close(): Promise<void> {
    this.accepting = false;
    await this.listener?.close();
    this.queue.drain({ status: 503, error: 'the server is stopping' });
    await this.spool?.close();
  }

  requestStats(): RequestStats {
    const statuses = { ...this.responder.statuses };
    if (this.rejected) statuses['rejected after 202'] = this.rejected;
    return { requests: this.requests, statuses, latency: this.responder.latency.snapshot() };
  }

  async plan(): Promise<PlanItem[]> {
    const f = this.f;
    const answered = f.fire_and_forget ? (f.spool_dir ? ', answered 202 once on disk (spool_dir)' : ', answered 202 at once (a crash loses what the sink has not written yet)') : ', answered after the sink confirmed';
    return [
      { label: 'listen', value: `${f.tls?.cert_file ? 'https' : 'http'}://${this.ep.url!.host}:${this.ep.url!.port}${f.path ?? ' (any path)'}, ${f.server_protocol}` },
      { label: 'requests', value: `${f.method ?? 'any method'}${f.basic_auth ? ', basic auth' : ''}${f.receive_streamable ? ', streamed bodies (one message per item)' : ''}${answered}` },
    ];
  }
}
