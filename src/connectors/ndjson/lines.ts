import type { Readable } from 'node:stream';
import { notUtf8 } from '../../core/utf8.js';

/** Pulls lines out of a byte stream on demand, so reading stops when the pipeline stops asking. */
export class LineReader {
  private readonly iter: AsyncIterator<Buffer>;
  private pending: Buffer[] = [];
  private lines: string[] = [];
  /** Numbers of the lines read so far that are not UTF-8, with their bad bytes (notUtf8). */
  private readonly notUtf8 = new Map<number, string>();
  private pushed = 0;
  /** For the line next() returned last: its bytes from the first that is not UTF-8, or undefined. */
  lastNotUtf8: string | undefined;
  private done = false;
  /** 1-based number of the last line returned. */
  lineNo = 0;

  constructor(stream: Readable) {
    this.iter = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** The next line without its terminator, or null at the end of input. */
  async next(): Promise<string | null> {
    while (this.lines.length === 0) {
      if (this.done) return null;
      const r = await this.iter.next();
      if (r.done) {
        this.done = true;
        if (this.pending.length > 0) {
          this.push(Buffer.concat(this.pending));
          this.pending = [];
        }
        continue;
      }
      this.split(r.value);
    }
    this.lineNo++;
    const line = this.lines.shift()!;
    this.lastNotUtf8 = this.notUtf8.get(this.lineNo);
    this.notUtf8.delete(this.lineNo);
    // A UTF-8 byte order mark (files saved by Windows tools, Excel's "UTF-8" CSV/JSON) is the file's signature, not text of its first line.
    return this.lineNo === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
  }

  /** Lines already read into memory, so a batch can be cut without awaiting. */
  get buffered(): number {
    return this.lines.length;
  }

  private split(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      this.push(line);
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  private push(line: Buffer): void {
    const text = line.toString('utf8');
    this.pushed++;
    // toString put U+FFFD in place of bytes that are not UTF-8 (a Latin-1 'café' became 'caf\uFFFD' and was copied, exit 0).
    const bad = notUtf8(line, text);
    if (bad !== undefined) this.notUtf8.set(this.pushed, bad);
    this.lines.push(stripCr(text));
  }

  async close(): Promise<void> {
    await this.iter.return?.();
  }
}

const stripCr = (s: string): string => (s.endsWith('\r') ? s.slice(0, -1) : s);
