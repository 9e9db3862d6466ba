/** Bytes per chunk handed to the COPY stream (one CopyData message each). */
const CHUNK = 256 * 1024;

/** Node's own string writers (on every Buffer, not in its typings): no argument parsing per call. */
export type FastBuffer = Buffer & { utf8Write(s: string, offset: number): number; latin1Write(s: string, offset: number): number };

/**
 * COPY data written straight into 256 KB Buffers and handed out as chunks: the encoders of both
 * COPY formats write into `buf` at `off` after room() made space. Rows may span chunks; COPY
 * takes its data as one byte stream.
 */
export class ChunkBuffer {
  protected buf = Buffer.allocUnsafe(CHUNK) as FastBuffer;
  /** Where the chunk being filled starts in `buf` (finish() hands out a part and the next fills the rest). */
  private start = 0;
  protected off = 0;
  private readonly done: Buffer[] = [];

  /** Makes room for `n` more bytes, closing the current chunk when they would not fit in it. */
  protected room(n: number): void {
    if (this.off + n <= this.buf.length) return;
    if (this.off > this.start) this.done.push(this.buf.subarray(this.start, this.off));
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK, n)) as FastBuffer;
    this.start = this.off = 0;
  }

  /** Every chunk, the last one included; the encoder starts empty again. */
  finish(): Buffer[] {
    if (this.off > this.start) {
      this.done.push(this.buf.subarray(this.start, this.off));
      this.start = this.off;
    }
    return this.done.splice(0);
  }
}
