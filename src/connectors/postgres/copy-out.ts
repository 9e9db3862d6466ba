import { textLiteral } from './literal.js';
/** A value as a literal (bytes in hex). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  return textLiteral(Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : String(v));
}

/**
 * COPY takes no parameters: `$n` outside quotes and identifiers becomes the value as a literal (an
 * untyped literal, read by the column it is compared with, as a bound text parameter is).
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  if (params.length === 0) return sql;
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === '"' || c === "'") {
      const end = sql.indexOf(c, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '$' && /\d/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /\d/.test(sql[j]!)) j++;
      out += literal(params[Number(sql.slice(i + 1, j)) - 1]);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const UNESCAPE: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** One COPY text field as the value a text-mode query returns (`\N` is NULL). */
function field(s: string): string | null {
  if (s === '\\N') return null;
  if (!s.includes('\\')) return s;
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return UNESCAPE[e] ?? e;
  });
}

/** Rows of COPY text (whole lines; the data of one COPY TO) as arrays of text values. */
export function parseCopyText(chunks: Buffer[]): (string | null)[][] {
  const text = Buffer.concat(chunks).toString('utf8');
  const rows: (string | null)[][] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    rows.push(text.slice(start, nl).split('\t').map(field));
    start = nl + 1;
  }
  return rows;
}

/** The last row of COPY text, without parsing or copying the others. */
export function lastCopyRow(chunks: Buffer[]): (string | null)[] | undefined {
  const tail: Buffer[] = [];
  let final = true; // the row's own newline is still to be passed
  for (let c = chunks.length - 1; c >= 0; c--) {
    const chunk = chunks[c]!;
    let end = chunk.length;
    if (final && end > 0) {
      end--;
      final = false;
    }
    // Buffer#lastIndexOf counts a negative offset from the end: an empty rest is skipped instead.
    const nl = end > 0 ? chunk.lastIndexOf(10, end - 1) : -1;
    tail.unshift(chunk.subarray(nl + 1, end));
    if (nl >= 0) break;
  }
  return final ? undefined : Buffer.concat(tail).toString('utf8').split('\t').map(field);
}

/**
 * COPY text rows with their fields picked and reordered (`indexes` of `width` fields per row; -1
 * gives NULL), without unescaping: a field's escapes are the same wherever it goes. Chunks as they
 * are when the fields are all of them, in order.
 */
export function pickCopyFields(chunks: Buffer[], indexes: number[], width: number): Buffer[] {
  if (indexes.length === width && indexes.every((x, i) => x === i)) return chunks;
  const data = Buffer.concat(chunks);
  let out = Buffer.allocUnsafe(data.length + 1024);
  const starts = new Int32Array(width + 2);
  let o = 0;
  let line = 0;
  while (line < data.length) {
    let f = 0;
    starts[0] = line;
    let p = line;
    for (; p < data.length && data[p] !== 10; p++) if (data[p] === 9 && f < width) starts[++f] = p + 1;
    starts[f + 1] = p + 1;
    // A field picked twice can make a row longer than it was.
    const need = indexes.length * (p - line + 3);
    if (o + need > out.length) {
      const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, o + need));
      out.copy(bigger, 0, 0, o);
      out = bigger;
    }
    for (let k = 0; k < indexes.length; k++) {
      if (k > 0) out[o++] = 9;
      const i = indexes[k]!;
      if (i < 0 || i > f) {
        out[o++] = 92;
        out[o++] = 78;
      } else o += data.copy(out, o, starts[i]!, starts[i + 1]! - 1);
    }
    out[o++] = 10;
    line = p + 1;
  }
  return [out.subarray(0, o)];
}

/** The header of binary COPY data: signature, no flags, no extension. */
export const BINARY_HEAD = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** Its trailer: a field count of -1. */
export const BINARY_TAIL = Buffer.from([0xff, 0xff]);

/** Key column types (pg_type names) whose binary form decodeTuple turns into the text a query returns: a table keyed by others is read as text. */
export const BINARY_KEY_TYPES = new Set(['int2', 'int4', 'int8', 'text', 'varchar', 'bpchar', 'uuid']);

/** One tuple's values as text, for the columns binaryKeys allows (integers, text, uuid); others are undefined. */
export function decodeTuple(data: Buffer, at: number, columns: { dbType: string }[]): unknown[] {
  const out: unknown[] = [];
  let off = at + 2;
  for (let f = 0; f < columns.length; f++) {
    const len = data.readInt32BE(off);
    off += 4;
    if (len < 0) {
      out.push(null);
      continue;
    }
    const t = columns[f]!.dbType;
    if (t === 'int' || t === 'bigint') out.push(len === 2 ? String(data.readInt16BE(off)) : len === 4 ? String(data.readInt32BE(off)) : String(data.readBigInt64BE(off)));
    else if (t === 'uuid') {
      const h = data.toString('hex', off, off + 16);
      out.push(`${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);
    } else if (t === 'text') out.push(data.toString('utf8', off, off + len));
    else out.push(undefined);
    off += len;
  }
  return out;
}
