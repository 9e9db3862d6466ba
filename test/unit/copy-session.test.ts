import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CopyAppender } from '../../src/connectors/postgres/copy-session.js';
import { CopyBinaryEncoder, binaryEncoders } from '../../src/connectors/postgres/copy-binary.js';
import type { Database } from '../../src/connectors/sql/database.js';

/**
 * Review findings on issue 15's open COPYs, each shown on pg-copy-streams' real stream over a
 * socket that takes nothing until told (a server busy refusing the COPY): what a test against the
 * server cannot time.
 */
function congested() {
  const socket = Object.assign(new EventEmitter(), { write: () => false });
  const connection = { stream: socket, query() {}, sendCopyFail() {} };
  const streams: (Writable & { handleError(e: Error): void })[] = [];
  const withConnection = async (fn: (c: unknown) => Promise<unknown>) =>
      fn({
        client: {
          query: (stream: Writable & { submit(c: unknown): void; handleCopyInResponse(c: unknown): void; handleError(e: Error): void }) => {
            stream.submit(connection);
            streams.push(stream);
            setImmediate(() => stream.handleCopyInResponse(connection));
            return stream;
          },
        },
      });
  // No batch position pending: atomic() is withConnection (a COPY commits itself).
  const db = { withConnection, atomicLoad: (fn: (c: unknown, wrap: (s: string) => string) => Promise<unknown>) => withConnection((c) => fn(c, (s) => s)), positionPending: () => false } as unknown as Database;
  return { socket, streams, db };
}

const tick = () => new Promise((r) => setTimeout(r, 10));

describe('batches sharing an open COPY', () => {
  it('a COPY the server refuses while a later batch waits on a full socket fails both batches, and the process lives on', async () => {
    const { socket, streams, db } = congested();
    const appender = new CopyAppender(db, { batches: 16, bytes: 1 << 30, idleMs: 1000 });
    const a = appender.append('COPY t FROM STDIN', [Buffer.alloc(1000)]);
    const b = appender.append('COPY t FROM STDIN', [Buffer.alloc(256 * 1024)]);
    const settled = Promise.allSettled([a, b]);
    await tick();
    streams[0]!.handleError(new Error('invalid input syntax for type json'));
    socket.emit('drain');
    await tick();
    socket.emit('drain');
    expect((await settled).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // The failed COPY takes no more batches: the next one opens another.
    void appender.append('COPY t FROM STDIN', [Buffer.alloc(10)]).catch(() => {});
    await tick();
    expect(streams).toHaveLength(2);
    appender.flush();
  });
});

describe('binary COPY rows', () => {
  it('short values take more bytes than 3 a character ("5" as numeric: 10), and nothing is dropped', () => {
    const col = (castType: string) => ({ name: 'v', type: 'text' as const, dbType: castType, nullable: true, castType });
    const enc = new CopyBinaryEncoder(binaryEncoders([col('numeric')], true)!);
    expect(enc.row(['12.5'])).toBe(true);
    for (let i = 0; i < 40_000; i++) enc.row(['5']);
    // 2 (field count) + 4 (length) + 8 (header) + 2 per base-10000 digit: 18 bytes, then 16 each.
    expect(Buffer.concat(enc.finish()).length).toBe(18 + 40_000 * 16);
    const floats = new CopyBinaryEncoder(binaryEncoders([col('float8'), col('float8'), col('float8')], true)!);
    for (let i = 0; i < 30_000; i++) expect(floats.row(i % 2 ? [null, '1', '2'] : ['1', '2', '3'])).toBe(true);
    expect(Buffer.concat(floats.finish()).length).toBe(15_000 * (2 + 3 * 12) + 15_000 * (2 + 4 + 2 * 12));
  });
});
