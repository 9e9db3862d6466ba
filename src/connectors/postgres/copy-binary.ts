import type { ColumnInfo } from '../sql/types.js';
import { ChunkBuffer, type ChunkPool } from '../sql/write/chunk-buffer.js';
import { bool, bytea, float8, integer, NOT_BINARY, numeric, put16, put32, text, uuid, type Encode } from './binary-values.js';
import { date, timestamp } from './binary-times.js';

/**
 * The binary encoder of each column, when every one has one: built-in types whose binary form is
 * the same value as their text (integers, float8, numeric, text, json/jsonb, bool, bytea, uuid,
 * date, timestamps). `sessionUtc`: the connection's TimeZone is UTC, so a zone-less value for a
 * timestamptz column means UTC, as the server would read it.
 */
export function binaryEncoders(cols: ColumnInfo[], sessionUtc: boolean): Encode[] | undefined {
  const out: Encode[] = [];
  for (const c of cols) {
    const e = encoderOf(c, sessionUtc);
    if (!e) return undefined;
    out.push(e);
  }
  return out;
}

function encoderOf(c: ColumnInfo, sessionUtc: boolean): Encode | undefined {
  switch (c.castType) {
    case 'int2':
      return integer(2);
    case 'int4':
      return integer(4);
    case 'int8':
      return integer(8);
    case 'float8':
      return float8;
    case 'numeric':
      return numeric;
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'json':
      return text(undefined);
    case 'jsonb':
      return text(1);
    case 'bool':
      return bool;
    case 'bytea':
      return bytea;
    case 'uuid':
      return uuid;
    case 'date':
      return date;
    case 'timestamp':
      return timestamp('none');
    case 'timestamptz':
      return timestamp(sessionUtc ? 'utc' : 'allowed');
    default:
      return undefined;
  }
}

/**
 * Rows in binary COPY format (tuples only: the COPY's header and trailer frame them), written
 * straight into 256 KB Buffers. row() returns false, having written nothing of the row, for a
 * value the encoders do not take; the caller then writes the batch as text.
 */
export class CopyBinaryEncoder extends ChunkBuffer {
  constructor(
    private readonly encoders: Encode[],
    pool?: ChunkPool,
  ) {
    super(pool);
  }

  row(values: readonly unknown[]): boolean {
    const n = this.encoders.length;
    // Room for the row at its largest: a text at 3 bytes a UTF-16 unit, a buffer at its length, each
    // with 16 more for its length word and the widest short form ("5" as a numeric takes 14 bytes).
    let need = 2;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      need += typeof v === 'string' ? v.length * 3 + 16 : Buffer.isBuffer(v) ? v.length + 16 : 64;
    }
    this.room(need);
    const b = this.buf;
    let p = this.off;
    put16(b, p, n);
    p += 2;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) {
        put32(b, p, -1);
        p += 4;
        continue;
      }
      const r = this.encoders[i]!(v, b, p);
      if (r === NOT_BINARY) return false;
      p = r;
    }
    // Stores past the end of a buffer are dropped without a word: a row that outgrew its room is a bug, not data.
    if (p > b.length) throw new Error(`a binary COPY row took ${p - this.off} bytes, more than the ${need} it was given (a bug)`);
    this.off = p;
    return true;
  }
}
