import { BodyTooLarge } from './body-limit.js';

const MAGIC = 0x184d2204;

/** Output that grows as needed but never past the limit: a hostile body costs at most `max` bytes. */
class Output {
  buf: Buffer;
  len = 0;

  constructor(private readonly max: number) {
    this.buf = Buffer.allocUnsafe(Math.min(max + 1, 64 * 1024));
  }

  reserve(n: number): void {
    if (this.len + n > this.max) throw new BodyTooLarge();
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.min(this.max + 1, Math.max(this.len + n, this.buf.length * 2)));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}

const corrupt = (why: string): never => {
  throw new Error(`corrupt lz4 frame: ${why}`);
};

/** One LZ4 block into `out`; matches may reach back into earlier blocks (linked blocks). */
function block(src: Buffer, start: number, end: number, out: Output): void {
  let i = start;
  while (i < end) {
    const token = src[i++]!;
    let lit = token >> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (i >= end) corrupt('literal length runs past the block');
        b = src[i++]!;
        lit += b;
      } while (b === 255);
    }
    if (i + lit > end) corrupt('literals run past the block');
    out.reserve(lit);
    src.copy(out.buf, out.len, i, i + lit);
    out.len += lit;
    i += lit;
    if (i >= end) return; // the last sequence has literals only
    if (i + 2 > end) corrupt('truncated match offset');
    const offset = src[i]! | (src[i + 1]! << 8);
    i += 2;
    if (offset === 0 || offset > out.len) corrupt('match offset outside the output');
    let len = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (i >= end) corrupt('match length runs past the block');
        b = src[i++]!;
        len += b;
      } while (b === 255);
    }
    out.reserve(len);
    const from = out.len - offset;
    // Overlapping copies repeat the last `offset` bytes: byte by byte when they overlap.
    if (offset >= len) out.buf.copy(out.buf, out.len, from, from + len);
    else for (let k = 0; k < len; k++) out.buf[out.len + k] = out.buf[from + k]!;
    out.len += len;
  }
}

/**
 * Decodes LZ4 frames (the format `lz4` writes and decisions §8 names) without ever holding more
 * than `maxBytes` of output: a decompression bomb stops at the limit (BodyTooLarge). Checksums are
 * not verified (the transport's integrity is HTTP's); concatenated and skippable frames are accepted.
 */
export function decodeLz4Frames(src: Buffer, maxBytes: number): Buffer {
  const out = new Output(maxBytes);
  let i = 0;
  const need = (n: number): void => {
    if (i + n > src.length) corrupt('truncated');
  };
  while (i < src.length) {
    need(4);
    const magic = src.readUInt32LE(i);
    i += 4;
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      need(4);
      i += 4 + src.readUInt32LE(i); // skippable frame
      continue;
    }
    if (magic !== MAGIC) corrupt('bad magic number');
    need(2);
    const flg = src[i]!;
    if (flg >> 6 !== 1) corrupt('unsupported version');
    const blockChecksum = (flg & 0x10) !== 0;
    const contentSize = (flg & 0x08) !== 0;
    const contentChecksum = (flg & 0x04) !== 0;
    const dictId = (flg & 0x01) !== 0;
    i += 2 + (contentSize ? 8 : 0) + (dictId ? 4 : 0) + 1; // FLG, BD, sizes, header checksum
    for (;;) {
      need(4);
      const word = src.readUInt32LE(i);
      i += 4;
      if (word === 0) break;
      const size = word & 0x7fffffff;
      need(size + (blockChecksum ? 4 : 0));
      if (word & 0x80000000) {
        out.reserve(size);
        src.copy(out.buf, out.len, i, i + size);
        out.len += size;
      } else block(src, i, i + size, out);
      i += size + (blockChecksum ? 4 : 0);
    }
    if (contentChecksum) i += 4;
  }
  return out.buf.subarray(0, out.len);
}
