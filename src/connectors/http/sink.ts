import type { Endpoint } from '../../config/endpoint.js';
import { resolveEndpoint } from '../../config/endpoint.js';
import type { TlsConfig } from '../../config/tls-spec.js';
import { BridgeError, configError, rejectedError, transientError } from '../../core/errors.js';
import { formatId, newId } from '../../core/ids.js';
import { Message } from '../../core/message.js';
import type { PlanItem, Reply, Sink, SinkContext } from '../../core/route.js';
import { ItemSplitter, streamFormat } from './body.js';
import { checkCustomHeaders, clientTls } from './client-options.js';
import { compress, type Codec } from './codecs.js';

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
  private readonly delivered = new WeakMap<Message, Reply | null>();
  private stream: Sink | undefined;
  private codec: Codec | undefined;
  private auth: string | undefined;

  constructor(private readonly ep: Endpoint) {
    this.f = ep.fields as unknown as Fields;
    const u = ep.url!;
    const query = ep.passthrough.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    this.target = `${u.base}${query ? `?${query}` : ''}`;
    if (this.f.basic_auth !== undefined) {
      const [user, pass] = this.f.basic_auth;
      if (this.f.basic_auth.length !== 2 || typeof user !== 'string' || typeof pass !== 'string') throw configError('basic_auth must be ["user","password"]');
      this.auth = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    }
    this.codec = this.f.compression && this.f.compression !== 'none' ? this.f.compression : this.f.compression_enabled ? 'gzip' : undefined;
    checkCustomHeaders(this.f.custom_headers);
  }

  async open(ctx: SinkContext): Promise<void> {
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
    const failures: { m: Message; error: BridgeError }[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= messages.length) return;
        const m = messages[i]!;
        const done = this.delivered.get(m);
        if (done !== undefined) {
          replies[i] = done ?? undefined;
          continue;
        }
        try {
          const reply = await this.send(m);
          this.delivered.set(m, reply ?? null);
          replies[i] = reply;
        } catch (e) {
          failures.push({ m, error: e instanceof BridgeError ? e : transientError(`request failed: ${(e as Error).message}`, e) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.f.batch_concurrency, messages.length) }, worker));
    const rejected = failures.find((x) => x.error.kind === 'rejected');
    if (rejected) throw rejected.error;
    if (failures.length) throw failures[0]!.error;
    return replies;
  }

  deliveredOf(messages: Message[]): number {
    return messages.filter((m) => this.delivered.has(m)).length;
  }

  private async send(m: Message): Promise<Reply> {
    let body = m.bytes();
    const headers: Record<string, string> = {
      'content-type': m.isJson ? 'application/json' : (m.metadata?.['http.content_type'] ?? 'application/octet-stream'),
      'message-id': m.idHex,
    };
    for (const [k, v] of Object.entries(this.f.custom_headers ?? {})) headers[k.toLowerCase()] = String(v);
    if (this.auth) headers.authorization = this.auth;
    if (this.codec && body.length >= this.f.compression_threshold_bytes) {
      body = await compress(this.codec, body);
      headers['content-encoding'] = this.codec;
    }
    let res;
    try {
      res = await this.undici.request(this.target, {
        method: (this.f.method ?? 'POST').toUpperCase() as 'POST',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: this.f.request_timeout_ms,
        bodyTimeout: this.f.request_timeout_ms,
      });
    } catch (e) {
      throw transientError(`request to ${new URL(this.target).host} failed: ${(e as Error).message}`, e);
    }
    const type = String(res.headers['content-type'] ?? '');
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const text = (await res.body.text().catch(() => '')).slice(0, 200);
      const msg = `HTTP ${res.statusCode} from ${new URL(this.target).host} for message ${m.idHex}${text ? `: ${text}` : ''}`;
      if (retryable(res.statusCode)) throw transientError(msg);
      throw rejectedError(msg, undefined, m.idHex);
    }
    const format = streamFormat(type);
    if (this.stream && format !== 'chunks') {
      await this.streamItems(m, res.body as AsyncIterable<Buffer>, format);
      return undefined;
    }
    const payload = Buffer.from(await res.body.arrayBuffer());
    if (payload.length === 0) return undefined;
    const reply = new Message(payload, { 'http.status': String(res.statusCode), ...(type ? { 'http.content_type': type } : {}) }, undefined, m.id);
    reply.isJson = /json/i.test(type);
    return reply;
  }

  /** contract §4.4: each item as a correlated message, then an end marker with an empty payload. */
  private async streamItems(m: Message, body: AsyncIterable<Buffer>, format: 'ndjson' | 'sse'): Promise<void> {
    const correlation = m.metadata?.correlation_id ?? formatId(m.id);
    const streamId = formatId(newId());
    let index = 0;
    let pending: Message[] = [];
    const meta = (end: boolean): Record<string, string> => ({
      correlation_id: correlation,
      http_stream_id: streamId,
      http_stream_index: String(index),
      http_stream_format: format,
      http_stream_end: String(end),
    });
    const flush = async (): Promise<void> => {
      if (pending.length) await this.stream!.write(pending);
      pending = [];
    };
    const splitter = new ItemSplitter(format, async (item) => {
      const out = new Message(item, meta(false));
      index++;
      pending.push(out);
      if (pending.length >= 100) await flush();
    });
    for await (const chunk of body) await splitter.write(chunk);
    await splitter.end();
    pending.push(new Message('', meta(true)));
    await flush();
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
