import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { rejectedError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { PgConnection } from './driver.js';

const ESCAPES = /[\\\t\n\r\0]/;
const ESCAPE_MAP: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A PostgreSQL array literal (`{1,NULL,"a b"}`) from a JS array, quoting every text element. */
export function arrayLiteral(v: unknown[]): string {
  return (
    '{' +
    v
      .map((x) => {
        if (x === null || x === undefined) return 'NULL';
        if (Array.isArray(x)) return arrayLiteral(x);
        if (typeof x === 'string') return '"' + x.replace(/[\\"]/g, (c) => '\\' + c) + '"';
        return String(x);
      })
      .join(',') +
    '}'
  );
}

/**
 * One value in COPY text format; NUL cannot be stored in PostgreSQL text, so it is a rejection of
 * `m` (unnamed for a row without a message: the engine retries its batch as messages to name it).
 */
export function copyValue(v: unknown, m: Message | undefined): string {
  if (v === null || v === undefined) return '\\N';
  let s: string;
  if (typeof v === 'string') s = v;
  else if (Buffer.isBuffer(v)) return '\\\\x' + v.toString('hex');
  else if (typeof v === 'boolean') return v ? 't' : 'f';
  else if (Array.isArray(v)) s = arrayLiteral(v);
  else s = String(v);
  if (!ESCAPES.test(s)) return s;
  if (s.includes('\0')) throw rejectedError(`${m ? `message ${m.idHex}` : 'a value'} holds a NUL byte (\\u0000), which PostgreSQL text cannot store`, undefined, m?.idHex);
  return s.replace(/[\\\t\n\r]/g, (c) => ESCAPE_MAP[c]!);
}

/** Runs `COPY … FROM STDIN` with `text` as the data; the returned promise settles when the server committed it. */
export async function copyIn(conn: PgConnection, sql: string, text: string): Promise<void> {
  await copyChunks(conn, sql, [Buffer.from(text, 'utf8')]);
}

/** `COPY … FROM STDIN` of data already in COPY format (whole rows); settles once the server committed it. */
export async function copyChunks(conn: PgConnection, sql: string, chunks: Buffer[]): Promise<void> {
  const { from } = (await import('pg-copy-streams')).default;
  const stream = conn.client.query(from(sql));
  await pipeline(Readable.from(chunks), stream);
}
