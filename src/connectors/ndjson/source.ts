import { createReadStream } from 'node:fs';
import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError } from '../../core/errors.js';
import { Message } from '../../core/message.js';
import type { PlanItem, Source, SourceBatch } from '../../core/route.js';
import { fromEnvelope } from './envelope.js';
import { LineReader } from './lines.js';

/** Reads one message per non-blank line of a file or stdin; each line must be JSON. */
export class NdjsonSource implements Source {
  readonly durablePosition = false;
  private reader!: LineReader;
  private readonly name: string;
  /** A bad line found after good ones: those are delivered first, the error comes on the next call. */
  private pending: BridgeError | undefined;

  constructor(private readonly ep: Endpoint) {
    this.name = ep.stdio ? 'stdin' : ep.file!;
  }

  async open(): Promise<void> {
    const stream = this.ep.stdio ? process.stdin : createReadStream(this.ep.file!, { highWaterMark: 1 << 20 });
    if (!this.ep.stdio) {
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', (e: NodeJS.ErrnoException) =>
          reject(new BridgeError('config', `cannot read ${this.name}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`, { cause: e })),
        );
      });
    }
    this.reader = new LineReader(stream);
  }

  async next(max: number, signal: AbortSignal): Promise<SourceBatch | null> {
    if (this.pending) throw this.pending;
    const messages: Message[] = [];
    try {
      await this.fill(messages, max, signal);
    } catch (e) {
      if (!(e instanceof BridgeError) || messages.length === 0) throw e;
      this.pending = e;
    }
    if (messages.length === 0) return null;
    const line = this.reader.lineNo;
    return { messages, position: `line ${line}`, ack: async () => {} };
  }

  private async fill(messages: Message[], max: number, signal: AbortSignal): Promise<void> {
    while (messages.length < max && !signal.aborted) {
      const line = await this.reader.next();
      if (line === null) break;
      if (line.trim() === '') continue;
      if (this.reader.lastNotUtf8 !== undefined)
        throw new BridgeError('input', `line ${this.reader.lineNo} of ${this.name} is not UTF-8 (bytes ${this.reader.lastNotUtf8}), which JSON text must be; convert the file (iconv -f latin1 -t utf-8) or fix that line`);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        throw new BridgeError('input', `line ${this.reader.lineNo} of ${this.name} is not valid JSON (${(e as Error).message}); fix or remove that line`);
      }
      if (this.ep.fields.format === 'envelope') {
        try {
          messages.push(fromEnvelope(value));
        } catch (e) {
          throw new BridgeError('input', `line ${this.reader.lineNo} of ${this.name} is not a message envelope: ${(e as Error).message}`);
        }
      } else {
        const m = new Message(line, undefined, this.ep.stdio ? undefined : `ndjson:${this.name}:${this.reader.lineNo}`);
        m.isJson = true;
        messages.push(m);
      }
      // Do not wait on a slow pipe for a full batch once something is in hand.
      if (this.ep.stdio && this.reader.buffered === 0 && messages.length > 0 && process.stdin.readableLength === 0) break;
    }
  }

  async close(): Promise<void> {
    await this.reader?.close();
  }

  async plan(): Promise<PlanItem[]> {
    return [{ label: 'source', value: `NDJSON lines from ${this.name}` }];
  }
}
