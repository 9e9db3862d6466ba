import type { Readable } from 'node:stream';
import { BodyTooLarge } from './codecs.js';

/** Reads a request body up to `maxBytes` (BodyTooLarge beyond). Events, not an async iterator: it is per request. */
export function readBody(req: Readable, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('the client aborted the request')));
  });
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
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.format === 'chunks') {
      if (chunk.length) await this.push(chunk);
      return;
    }
    this.rest += chunk.toString('utf8');
    let nl: number;
    while ((nl = this.rest.indexOf('\n')) >= 0) {
      const line = this.rest.slice(0, nl).replace(/\r$/, '');
      this.rest = this.rest.slice(nl + 1);
      await this.line(line);
    }
  }

  async end(): Promise<void> {
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
