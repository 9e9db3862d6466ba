import type { Readable } from 'node:stream';

/** Pulls lines out of a byte stream on demand, so reading stops when the pipeline stops asking. */
export class LineReader {
  private readonly iter: AsyncIterator<Buffer>;
  private pending: Buffer[] = [];
  private lines: string[] = [];
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
          this.lines.push(stripCr(Buffer.concat(this.pending).toString('utf8')));
          this.pending = [];
        }
        continue;
      }
      this.split(r.value);
    }
    this.lineNo++;
    const line = this.lines.shift()!;
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
      this.lines.push(stripCr(line.toString('utf8')));
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  async close(): Promise<void> {
    await this.iter.return?.();
  }
}

const stripCr = (s: string): string => (s.endsWith('\r') ? s.slice(0, -1) : s);
