/** Bytes per chunk handed to a bulk-load stream (a COPY's CopyData message, a LOAD DATA packet). */
const CHUNK = 256 * 1024;
/** Strings longer than this get their exact byte length measured instead of reserving 3 bytes per code unit. */
const LONG = 16 * 1024;

/** Node's own string writers (on every Buffer, not in its typings): no argument parsing per call. */
export type FastBuffer = Buffer & { utf8Write(s: string, offset: number): number; latin1Write(s: string, offset: number): number };

/**
 * 256 KB Buffers handed back once the COPY that sent them committed, for the next batches'
 * encoders. Encoded batches wait for their commit across many young-generation collections, so a
 * fresh Buffer per chunk ended up in the old generation as garbage, freed only by a full
 * collection: on 1M rows converted into PostgreSQL, 75 MB of ArrayBuffers at the peak for 10 MB
 * live.
 */
export class ChunkPool {
  private readonly free: Buffer[] = [];
  private readonly held = new WeakSet<ArrayBufferLike>();

  constructor(private readonly keep: number) {}

  take(): Buffer {
    const b = this.free.pop();
    if (b) this.held.delete(b.buffer);
    return b ?? Buffer.allocUnsafe(CHUNK);
  }

  /** Takes back the pool-sized Buffers under `chunks`: nothing may read them any more (their COPY committed). */
  give(chunks: readonly Buffer[]): void {
    for (const c of chunks) {
      const ab = c.buffer;
      if (ab.byteLength !== CHUNK || this.held.has(ab) || this.free.length >= this.keep) continue;
      this.held.add(ab);
      this.free.push(Buffer.from(ab, 0, CHUNK));
    }
  }
}

/**
 * COPY data written straight into 256 KB Buffers and handed out as chunks: the encoders of both
 * COPY formats write into `buf` at `off` after room() made space. Rows may span chunks; COPY
 * takes its data as one byte stream.
 */
export class ChunkBuffer {
  protected buf: FastBuffer;
  /** Where the chunk being filled starts in `buf` (finish() hands out a part and the next fills the rest). */
  private start = 0;
  protected off = 0;
  private readonly done: Buffer[] = [];

  /** `pool`: where chunks come from, when the caller gives them back after their COPY (ChunkPool). */
  constructor(private readonly pool?: ChunkPool) {
    this.buf = this.fresh(CHUNK);
  }

  private fresh(n: number): FastBuffer {
    return (n <= CHUNK && this.pool ? this.pool.take() : Buffer.allocUnsafe(Math.max(CHUNK, n))) as FastBuffer;
  }

  /** Makes room for `n` more bytes, closing the current chunk when they would not fit in it. */
  protected room(n: number): void {
    if (this.off + n <= this.buf.length) return;
    if (this.off > this.start) this.done.push(this.buf.subarray(this.start, this.off));
    this.buf = this.fresh(n);
    this.start = this.off = 0;
  }

  /** Writes text known to be ASCII (numbers, keywords). */
  protected ascii(s: string): void {
    this.room(s.length);
    this.off += this.buf.latin1Write(s, this.off);
  }

  /** Writes text as UTF-8. */
  protected utf8(s: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair takes 4 for 2 units).
    this.room(s.length > LONG ? Buffer.byteLength(s) : s.length * 3);
    this.off += this.buf.utf8Write(s, this.off);
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
