import { resolveEndpoint, type Endpoint } from '../../config/endpoint.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { BridgeError, rejectedError, transientError } from '../../core/errors.js';
import { Message } from '../../core/message.js';
import type { PlanItem, Reply, Sink, SinkContext } from '../../core/route.js';
import { streamFormat } from './body.js';
import { basicAuthHeader, checkCustomHeaders, clientTls, requestUrl } from './client-options.js';
import { compress, type Codec } from './codecs.js';
import { Pacer, PeerAskedToWait, redirected, retryAfterMs } from './pacing.js';
import { streamItems } from './response-items.js';
import { Outstanding } from './outstanding.js';
import { requestHeaders } from './request-headers.js';
import { isUndiciTimeout, StallBreaker, TimedOut } from './stall-breaker.js';

type Undici = typeof import('undici');
type Agent = InstanceType<Undici['Agent']>;

interface Fields {
  method?: string;
  basic_auth?: unknown[];
  custom_headers?: Record<string, unknown>;
  tls?: TlsConfig;
  request_timeout_ms: number;
  compression_enabled: boolean;
  compression?: 'none' | Codec;
  compression_threshold_bytes: number;
  batch_concurrency: number;
  pool_idle_timeout_ms: number;
  tcp_keepalive_ms: number;
  shared: boolean;
  stream_response_to?: string;
  retry_after_max_ms: number;
}

const agents = new Map<string, { agent: Agent; refs: number }>();

/** decisions §8: 408, 429 and 5xx (but 501, 505) are worth retrying; other non-2xx are rejections. */
export const retryable = (status: number): boolean => status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);

/**
 * The HTTP publisher: one request per message, up to batch_concurrency at once, through a pooled
 * undici agent. 2xx answers become reply messages; SSE/NDJSON answers go item by item to
 * stream_response_to. A message already delivered is not sent again when a batch is retried.
 */
export class HttpSink implements Sink {
  private undici!: Undici;
  private agent!: Agent;
  private agentKey = '';
  private readonly f: Fields;
  private readonly target: string;
  private readonly host: string;
  private readonly stalls: StallBreaker;
  private readonly outstanding: Outstanding;
  private pacer!: Pacer;
  private readonly delivered = new WeakMap<Message, Reply | null>();
  private stream: Sink | undefined;
  private codec: Codec | undefined;
  private auth: string | undefined;

  constructor(private readonly ep: Endpoint) {
    this.f = ep.fields as unknown as Fields;
    this.target = requestUrl(ep.url!, ep.passthrough);
    this.host = new URL(this.target).host;
    this.auth = basicAuthHeader(this.f.basic_auth, ep.url!);
    this.codec = this.f.compression && this.f.compression !== 'none' ? this.f.compression : this.f.compression_enabled ? 'gzip' : undefined;
    checkCustomHeaders(this.f.custom_headers);
    this.stalls = new StallBreaker(this.f.batch_concurrency);
    this.outstanding = new Outstanding(this.host, this.f.request_timeout_ms);
  }

  /** The progress line's "waiting on": the requests this sink has out and not answered. */
  waitingOn(): string | undefined {
    return this.outstanding.describe();
  }

  async open(ctx: SinkContext): Promise<void> {
    this.pacer = new Pacer(this.f.retry_after_max_ms, ctx.warn);
    if (this.codec === 'lz4') ctx.warn('compression=lz4 is not an HTTP content coding: only another bridge (or a server that knows LZ4 frames) can read these bodies');
    this.undici = await import('undici');
    const connect = { keepAlive: true, keepAliveInitialDelay: this.f.tcp_keepalive_ms, ...clientTls(this.f.tls, ctx.warn) };
    const opts = { keepAliveTimeout: this.f.pool_idle_timeout_ms, connections: this.f.batch_concurrency, connect };
    this.agentKey = JSON.stringify([new URL(this.ep.url!.base).origin, opts.keepAliveTimeout, opts.connections, this.f.tcp_keepalive_ms, this.f.tls ?? null]);
    const existing = this.f.shared ? agents.get(this.agentKey) : undefined;
    if (existing) {
      existing.refs++;
      this.agent = existing.agent;
    } else {
      this.agent = new this.undici.Agent(opts);
      if (this.f.shared) agents.set(this.agentKey, { agent: this.agent, refs: 1 });
    }
    if (this.f.stream_response_to) {
      const { createSink, specForScheme } = await import('../registry.js');
      const target = this.f.stream_response_to;
      const ep = resolveEndpoint(target, 'publisher', specForScheme, target.startsWith('file:') || target.startsWith('-') ? [['format', 'envelope']] : []);
      this.stream = await createSink(ep);
      await this.stream.open(ctx);
    }
  }

  get concurrency(): number {
    return 1;
  }

  /** Each message gets the response as its answer: a listener in front can reply with it. */
  readonly answers = true;

  async write(messages: Message[]): Promise<Reply[]> {
    const replies = new Array<Reply>(messages.length);
    const failures: BridgeError[] = [];
    // Aborted when the stall breaker opens: no new request starts, those in flight are given up.
    const stop = new AbortController();
    let stalled: TimedOut | undefined;
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= messages.length || stop.signal.aborted) return;
        const m = messages[i]!;
        const done = this.delivered.get(m);
        if (done !== undefined) {
          replies[i] = done ?? undefined;
          continue;
        }
        const error = await this.deliver(m, stop.signal, (reply) => (replies[i] = reply));
        if (error instanceof TimedOut) stalled ??= this.stalls.timedOut(error);
        if (stalled) stop.abort();
        if (error && !stop.signal.aborted) failures.push(error);
        // A probe that got its answer: the peer is back, the other requests may go.
        if (!this.stalls.open && workers.length < width) spawn(width - workers.length);
      }
    };
    const width = Math.min(this.f.batch_concurrency, messages.length);
    const workers: Promise<void>[] = [];
    const spawn = (n: number): void => {
      for (let k = 0; k < n; k++) workers.push(worker());
    };
    spawn(this.stalls.open ? 1 : width);
    for (let waited = 0; waited < workers.length; ) {
      const now = workers.length;
      await Promise.all(workers);
      waited = now;
    }
    const rejected = failures.find((x) => x.kind === 'rejected');
    if (rejected) throw rejected;
    if (stalled) throw stalled;
    if (failures.length) throw failures[0]!;
    return replies;
  }

  /** Sends one message until it is answered, re-sending it after each pause its peer asks for; the failure, if any. */
  private async deliver(m: Message, stop: AbortSignal, answered: (reply: Reply) => void): Promise<BridgeError | undefined> {
    for (;;) {
      await this.pacer.ready(stop);
      if (stop.aborted) return undefined;
      try {
        const reply = await this.send(m, stop);
        this.delivered.set(m, reply ?? null);
        this.pacer.delivered();
        answered(reply);
        return undefined;
      } catch (e) {
        if (e instanceof PeerAskedToWait && this.pacer.pause(e, this.host)) continue;
        return e instanceof BridgeError ? e : transientError(`request failed: ${(e as Error).message}`, e);
      }
    }
  }

  deliveredOf(messages: Message[]): number {
    return messages.filter((m) => this.delivered.has(m)).length;
  }

  private async send(m: Message, stop: AbortSignal): Promise<Reply> {
    let body = m.bytes();
    const headers = requestHeaders(m, this.f.custom_headers, this.auth);
    if (this.codec && body.length >= this.f.compression_threshold_bytes) {
      body = await compress(this.codec, body);
      headers['content-encoding'] = this.codec;
    }
    // request_timeout_ms bounds the whole exchange (a peer may send headers and never finish),
    // except a streamed answer, which only must not pause longer than that between chunks.
    const ms = this.f.request_timeout_ms;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), ms);
    let headersIn = false;
    const out = this.outstanding.begin();
    try {
      const res = await this.undici.request(this.target, {
        method: (this.f.method ?? 'POST').toUpperCase() as 'POST',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: ms,
        bodyTimeout: ms,
        signal: AbortSignal.any([stop, deadline.signal]),
      });
      headersIn = true;
      this.outstanding.headers(out);
      const type = String(res.headers['content-type'] ?? '');
      if (res.statusCode < 200 || res.statusCode >= 300) {
        const text = (await res.body.text().catch(() => '')).slice(0, 200);
        this.stalls.answered();
        if (res.statusCode >= 300 && res.statusCode < 400) throw redirected(this.target, this.host, res.statusCode, res.headers.location);
        const msg = `HTTP ${res.statusCode} from ${this.host} for message ${m.idHex}${text ? `: ${text}` : ''}`;
        const asked = res.statusCode === 429 || res.statusCode === 503 ? retryAfterMs(res.headers['retry-after']) : undefined;
        if (asked !== undefined) throw new PeerAskedToWait(msg, asked, res.statusCode);
        if (retryable(res.statusCode)) throw transientError(msg);
        throw rejectedError(msg, undefined, m.idHex);
      }
      const format = streamFormat(type);
      if (this.stream && format !== 'chunks') {
        clearTimeout(timer);
        await streamItems(this.stream, m, res.body as AsyncIterable<Buffer>, format, type);
        this.stalls.answered();
        return undefined;
      }
      const payload = Buffer.from(await res.body.arrayBuffer());
      this.stalls.answered();
      if (payload.length === 0) return undefined;
      const reply = new Message(payload, { 'http.status': String(res.statusCode), ...(type ? { 'http.content_type': type } : {}) }, undefined, m.id);
      reply.isJson = /json/i.test(type);
      return reply;
    } catch (e) {
      if (e instanceof BridgeError) throw e;
      if ((deadline.signal.aborted && !stop.aborted) || isUndiciTimeout(e))
        throw new TimedOut(`request to ${this.host} timed out after ${ms} ms for message ${m.idHex} (${headersIn ? 'its answer never finished' : 'no answer'})`, e);
      throw transientError(`request to ${this.host} failed: ${(e as Error).message}`, e);
    } finally {
      clearTimeout(timer);
      this.outstanding.end(out);
    }
  }

  async plan(): Promise<PlanItem[]> {
    return [
      { label: 'sink', value: `${(this.f.method ?? 'POST').toUpperCase()} ${this.ep.display}, one request per message, ${this.f.batch_concurrency} at once` },
      { label: 'bodies', value: this.codec ? `${this.codec} from ${this.f.compression_threshold_bytes} bytes` : 'uncompressed' },
    ];
  }

  async close(): Promise<void> {
    await this.stream?.close();
    const e = agents.get(this.agentKey);
    if (e && e.agent === this.agent) {
      if (--e.refs > 0) return;
      agents.delete(this.agentKey);
    }
    await this.agent?.close();
  }
}
