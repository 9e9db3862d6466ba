import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { BINARY_HEAD, BINARY_TAIL } from './copy-out.js';
import type { PgConnection } from './driver.js';
import copyStreams from 'pg-copy-streams';

const { from } = copyStreams;

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

/** `COPY … FROM STDIN` of data already in COPY format (whole rows); settles once the server committed it. */
export async function copyChunks(conn: PgConnection, sql: string, chunks: Buffer[], wrap: (sql: string) => string = (s) => s, sent?: () => void): Promise<void> {
  // `wrap`: the COPY sent with the batch's position and COMMIT (Database.atomicLoad).
  const stream = conn.client.query(from(wrap(sql)));
  const rows = Readable.from(chunks);
  // `sent`: once the rows are handed to the socket, while the server works on them.
  if (sent) rows.once('end', () => setImmediate(sent));
  await pipeline(rows, stream);
}

/** `COPY … FROM STDIN` of whole rows, as text or as binary tuples (framed here by the format's header and trailer). */
export function copyRows(conn: PgConnection, sql: string, chunks: Buffer[], binary: boolean, wrap?: (sql: string) => string): Promise<void> {
  return binary ? copyChunks(conn, `${sql} (FORMAT binary)`, [BINARY_HEAD, ...chunks, BINARY_TAIL], wrap) : copyChunks(conn, sql, chunks, wrap);
}
