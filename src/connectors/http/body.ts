import type { Readable } from 'node:stream';
import { BodyTooLarge } from './codecs.js';
import { StreamText } from './text-body.js';

/** The part of an HTTP/2 request that tells a reset stream from one the client ended. */
interface MaybeHttp2Request {
  aborted?: boolean;
  stream?: { aborted: boolean; rstCode?: number };
}

/**
 * Whether the body that just ended was ended by the client. HTTP/2 ends a request's body also when
 * the client resets its stream (RST_STREAM), and Node says so only after the end: the check waits
 * for that (it comes in the same read from the socket). HTTP/1.1 reports a cut body as an error.
 */
export async function endedByClient(req: Readable): Promise<boolean> {
  const r = req as Readable & MaybeHttp2Request;
  if (r.stream === undefined) return r.aborted !== true;
  await new Promise((resolve) => setImmediate(resolve));
  return !r.aborted && !r.stream.aborted && !r.stream.rstCode;
}

/** The client cancelled the request before its body ended: there is nobody to answer. */
export class RequestCancelled extends Error {
  constructor() {
    super('the client cancelled the request before its body ended');
  }
}

/**
 * The bytes of request bodies still arriving, all requests together (body_buffer_bytes): 40
 * clients holding 15 MB of unfinished bodies each grew a listener to 635 MB.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used -= n;
  }
}

/** A body that would pass body_buffer_bytes: answered 503 with Retry-After. */
export class BodyBudgetFull extends Error {
  constructor(limit: number) {
    super(`the listener holds body_buffer_bytes (${limit}) of request bodies still arriving; send again shortly`);
  }
}

/**
 * Reads a request body up to `maxBytes` (BodyTooLarge beyond; RequestCancelled when the client
 * gave up before the end), its bytes counted in `budget` until it ends (BodyBudgetFull past it).
 * Events, not an async iterator: it is per request.
 */
export function readBody(req: Readable, maxBytes: number, budget?: BodyBudget): Promise<Buffer> {
  let held = 0;
  const release = (): void => {
    budget?.give(held);
    held = 0;
  };
  return new Promise<Buffer>((resolve, reject) => {
    // A stream reset before its handler got here was ended and its data dumped by Node: no event would come.
    if (req.readableEnded || req.destroyed) return reject(new RequestCancelled());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      const over = size > maxBytes ? new BodyTooLarge() : budget && !budget.take(chunk.length) ? new BodyBudgetFull(budget.limit) : undefined;
      if (over) {
        req.off('data', onData);
        req.resume();
        release();
        reject(over);
        return;
      }
      held += budget ? chunk.length : 0;
      chunks.push(chunk);
    };
    // A client that leaves mid-body frees its bytes at once, not when the request is settled.
    req.on('close', release);
    // `on`, not `once`: each request is read once, and `once` wraps every listener (allocation per request).
    req.on('data', onData);
    req.on('end', () => {
      void endedByClient(req).then((whole) => (whole ? resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) : reject(new RequestCancelled())));
    });
    req.on('error', reject);
    req.on('aborted', () => reject(new RequestCancelled()));
  }).finally(release);
}

export type StreamFormat = 'ndjson' | 'sse' | 'chunks';

/** decisions §7: NDJSON/JSON-lines → one item per line, text/event-stream → one per event, else one per chunk. */
export function streamFormat(contentType: string | undefined): StreamFormat {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (t === 'application/x-ndjson' || t === 'application/jsonl' || t === 'application/ndjson' || t === 'application/json-lines') return 'ndjson';
  if (t === 'text/event-stream') return 'sse';
  return 'chunks';
}

/**
 * Splits a byte stream into items as they arrive: NDJSON lines, SSE events (the `data:` lines of an
 * event joined by newlines), or raw chunks. `push` may return a promise to apply backpressure.
 */
export class ItemSplitter {
  private rest = '';
  private sseData: string[] = [];

  constructor(
    private readonly format: StreamFormat,
    private readonly push: (item: string | Buffer) => Promise<void> | void,
    /**
     * Lines and events, and the chunks of a text body, are read in the body's charset across
     * chunks (a character may be cut between two); without it chunks stay bytes.
     */
    private readonly text: StreamText | undefined = format === 'chunks' ? undefined : new StreamText(''),
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.format === 'chunks') {
      const item = this.text ? this.text.write(chunk) : chunk;
      if (item.length) await this.push(item);
      return;
    }
    this.rest += this.text!.write(chunk);
    let nl: number;
    while ((nl = this.rest.indexOf('\n')) >= 0) {
      const line = this.rest.slice(0, nl).replace(/\r$/, '');
      this.rest = this.rest.slice(nl + 1);
      await this.line(line);
    }
  }

  async end(): Promise<void> {
    const last = this.text?.end() ?? '';
    if (this.format === 'chunks') {
      if (last) await this.push(last);
      return;
    }
    this.rest += last;
    if (this.rest !== '') await this.line(this.rest.replace(/\r$/, ''));
    this.rest = '';
    if (this.format === 'sse') await this.line('');
  }

  private async line(line: string): Promise<void> {
    if (this.format === 'ndjson') {
      if (line.trim() !== '') await this.push(line);
      return;
    }
    if (line === '') {
      if (this.sseData.length) await this.push(this.sseData.join('\n'));
      this.sseData = [];
    } else if (line.startsWith('data:')) this.sseData.push(line.slice(line[5] === ' ' ? 6 : 5));
  }
}
