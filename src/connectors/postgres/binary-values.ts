/**
 * PostgreSQL's binary forms of built-in types, written from the values bridge's converters give
 * (text, numbers, booleans, Buffers). Each takes only spellings whose value it knows exactly, and
 * answers NOT_BINARY for anything else, which then goes as text and is read by the server's own
 * rules (24:00:00, 7 fraction digits, exponents, out-of-range integers...).
 */
import type { FastBuffer } from '../sql/write/chunk-buffer.js';

/** A value this encoder does not take: the batch is written as COPY text instead, where the server's own parser decides. */
export const NOT_BINARY = Symbol('not binary');

/** Writes one non-null value at `off` (its 4-byte length first); returns the new offset, or NOT_BINARY. */
export type Encode = (v: unknown, b: FastBuffer, off: number) => number | typeof NOT_BINARY;

const INT = /^-?\d{1,19}$/;
const FLOAT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const TWO32 = 2 ** 32;

/** Big-endian stores without Buffer#write*'s argument checks (a typed-array store keeps the low 8 bits). */
export function put32(b: Buffer, p: number, n: number): void {
  b[p] = n >>> 24;
  b[p + 1] = n >>> 16;
  b[p + 2] = n >>> 8;
  b[p + 3] = n;
}

export function put16(b: Buffer, p: number, n: number): void {
  b[p] = n >>> 8;
  b[p + 1] = n;
}

export function int64(b: FastBuffer, off: number, n: number): number {
  const hi = Math.floor(n / TWO32);
  put32(b, off, hi);
  put32(b, off + 4, n - hi * TWO32);
  return off + 8;
}

/** Two or more decimal digits at `i` as a number; -1 when one is not a digit. */
export function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** An integer written in at most 15 digits (a leading minus allowed), without a regex or a string; undefined otherwise. */
function shortInt(s: string): number | undefined {
  const len = s.length;
  const neg = s.charCodeAt(0) === 45 ? 1 : 0;
  if (len === neg || len - neg > 15) return undefined;
  const v = digits(s, neg, len - neg);
  return v < 0 ? undefined : neg ? -v : v;
}

/** A string as UTF-8 at `p`; short ASCII strings byte by byte (cheaper than a call into the runtime). */
function writeUtf8(v: string, b: FastBuffer, p: number): number {
  const len = v.length;
  if (len <= 32) {
    let k = 0;
    for (; k < len; k++) {
      const c = v.charCodeAt(k);
      if (c > 127) break;
      b[p + k] = c;
    }
    if (k === len) return p + len;
  }
  return p + b.utf8Write(v, p);
}

export function text(prefix: number | undefined): Encode {
  return (v, b, off) => {
    // A NUL goes as text, whose encoder rejects the row by name (the server would refuse the whole COPY).
    if (typeof v !== 'string' || v.indexOf('\0') !== -1) return NOT_BINARY;
    const at = off + 4;
    let p = at;
    if (prefix !== undefined) b[p++] = prefix;
    p = writeUtf8(v, b, p);
    put32(b, off, p - at);
    return p;
  };
}

export function integer(bytes: 2 | 4 | 8): Encode {
  const lo = bytes === 2 ? -32768 : bytes === 4 ? -2147483648 : Number.MIN_SAFE_INTEGER;
  const hi = bytes === 2 ? 32767 : bytes === 4 ? 2147483647 : Number.MAX_SAFE_INTEGER;
  return (v, b, off) => {
    let n: number | undefined;
    if (typeof v === 'number') n = v;
    else if (typeof v === 'bigint') n = Number(v);
    else if (typeof v === 'string') n = shortInt(v) ?? (INT.test(v) ? Number(v) : undefined);
    if (n === undefined || !Number.isSafeInteger(n) || n < lo || n > hi || Object.is(n, -0)) return NOT_BINARY;
    put32(b, off, bytes);
    if (bytes === 2) put16(b, off + 4, n);
    else if (bytes === 4) put32(b, off + 4, n);
    else return int64(b, off + 4, n);
    return off + 4 + bytes;
  };
}

export const float8: Encode = (v, b, off) => {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v !== 'string') return NOT_BINARY;
  else if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') n = Number(v);
  else {
    if (!FLOAT.test(v)) return NOT_BINARY;
    n = Number(v);
    // The server refuses what overflows or underflows; a double would keep Infinity or 0.
    if (!Number.isFinite(n) || (n === 0 && /[1-9]/.test(v.replace(/[eE].*$/, '')))) return NOT_BINARY;
  }
  put32(b, off, 8);
  b.writeDoubleBE(n, off + 4);
  return off + 12;
};

/** Base-10000 digits of a numeric, reused from value to value. */
const groups = new Int32Array(4096);

/** numeric: base-10000 digits, weight of the first, sign, and the scale written (trailing zeros kept). */
export const numeric: Encode = (v, b, off) => {
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined;
  if (s === undefined) return NOT_BINARY;
  if (s === 'NaN') {
    put32(b, off, 8);
    put32(b, off + 4, 0);
    put16(b, off + 8, 0xc000);
    put16(b, off + 10, 0);
    return off + 12;
  }
  const len = s.length;
  const neg = s.charCodeAt(0) === 45;
  const begin = neg ? 1 : 0;
  let dot = begin;
  while (dot < len) {
    const c = s.charCodeAt(dot);
    if (c === 46) break;
    if (c < 48 || c > 57) return NOT_BINARY;
    dot++;
  }
  if (dot === begin) return NOT_BINARY;
  for (let k = dot + 1; k < len; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return NOT_BINARY;
  }
  const scale = dot < len ? len - dot - 1 : 0;
  const intLen = dot - begin;
  // Group digits by 4 from the decimal point: the integer part padded on its left, the fraction on its right.
  const lead = (4 - (intLen % 4)) % 4;
  const intGroups = (intLen + lead) / 4;
  const fracGroups = Math.ceil(scale / 4);
  const total = intGroups + fracGroups;
  if (total > groups.length || scale > 16383) return NOT_BINARY;
  for (let g = 0; g < total; g++) {
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const pos = g * 4 + k - lead; // position among the digits, the point skipped
      let d = 0;
      if (pos >= 0 && pos < intLen) d = s.charCodeAt(begin + pos) - 48;
      else if (pos >= intLen && pos - intLen < scale) d = s.charCodeAt(dot + 1 + pos - intLen) - 48;
      n = n * 10 + d;
    }
    groups[g] = n;
  }
  let first = 0;
  while (first < total && groups[first] === 0) first++;
  let last = total;
  while (last > first && groups[last - 1] === 0) last--;
  const n = last - first;
  put32(b, off, 8 + n * 2);
  put16(b, off + 4, n);
  put16(b, off + 6, n === 0 ? 0 : intGroups - 1 - first);
  put16(b, off + 8, neg && n > 0 ? 0x4000 : 0);
  put16(b, off + 10, scale);
  let p = off + 12;
  for (let i = first; i < last; i++, p += 2) put16(b, p, groups[i]!);
  return p;
};

export const bool: Encode = (v, b, off) => {
  const t = v === true || v === 't' || v === 'true' ? 1 : v === false || v === 'f' || v === 'false' ? 0 : -1;
  if (t < 0) return NOT_BINARY;
  put32(b, off, 1);
  b[off + 4] = t;
  return off + 5;
};

export const bytea: Encode = (v, b, off) => {
  if (!Buffer.isBuffer(v)) return NOT_BINARY;
  put32(b, off, v.length);
  v.copy(b, off + 4);
  return off + 4 + v.length;
};

export const uuid: Encode = (v, b, off) => {
  if (typeof v !== 'string' || !UUID.test(v)) return NOT_BINARY;
  put32(b, off, 16);
  b.write(v.replace(/-/g, ''), off + 4, 16, 'hex');
  return off + 20;
};

