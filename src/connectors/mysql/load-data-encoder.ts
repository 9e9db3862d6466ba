import { ChunkBuffer } from '../sql/write/chunk-buffer.js';

const ESCAPES = /[\\\t\n\r\0\x1a]/;
const ESCAPE_MAP: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\x1a': '\\Z' };

/**
 * Rows in LOAD DATA's default text format (tab between fields, newline after each row, `\N` for
 * NULL, backslash escapes), written straight into Buffers: joining row strings and encoding the
 * batch's text again cost about 2 µs a row and most of the copy's garbage.
 */
export class LoadDataEncoder extends ChunkBuffer {
  /**
   * One row; false when a value cannot be written as text (bytes: the batch stays on the INSERT
   * path, and this encoder is dropped with what it wrote). `year[i]`: column i is YEAR, which reads the text 0 as 2000
   * (the number 0 an INSERT binds is 0000), so 0 is written as 0000.
   */
  row(values: readonly unknown[], year: readonly boolean[]): boolean {
    const n = values.length;
    for (let i = 0; i < n; i++) {
      if (i > 0) {
        this.room(1);
        this.buf[this.off++] = 9;
      }
      const v = values[i];
      if (year[i] && v !== null && v !== undefined && Number(v) === 0) this.ascii('0000');
      else if (!this.value(v)) return false;
    }
    this.room(1);
    this.buf[this.off++] = 10;
    return true;
  }

  private value(v: unknown): boolean {
    if (v === null || v === undefined) this.ascii('\\N');
    else if (typeof v === 'string') this.text(v);
    else if (typeof v === 'number' || typeof v === 'bigint') this.ascii(String(v));
    else if (typeof v === 'boolean') this.ascii(v ? '1' : '0');
    else return false;
    return true;
  }

  private text(s: string): void {
    if (ESCAPES.test(s)) s = s.replace(/[\\\t\n\r\0\x1a]/g, (c) => ESCAPE_MAP[c]!);
    this.utf8(s);
  }
}
