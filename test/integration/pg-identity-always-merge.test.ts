import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir, writeNdjson } from '../helpers/bridge.js';
import { postgres, type TestDb } from '../helpers/databases.js';

/**
 * A PostgreSQL target merged by a natural key (`key=email`) beside a surrogate `GENERATED ALWAYS AS
 * IDENTITY` column: the common users table. Re-running a copy of the same rows failed with exit 1,
 * 'column "seq" can only be updated to DEFAULT': the merge said SET seq = EXCLUDED.seq, which
 * PostgreSQL refuses for such a column. The merge now leaves the column out of its SET, and a row
 * whose stored value differs from the message's is refused naming the field (the row would not
 * match its source otherwise): exit 4, or the dead letter.
 */
const dir = tempDir();
let pg: TestDb;
const DDL = (t: string): string => `CREATE TABLE ${t} (email text PRIMARY KEY, seq int GENERATED ALWAYS AS IDENTITY UNIQUE, a text)`;

beforeAll(async () => {
  pg = await postgres();
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS gim_src, gim_dst, gim_many, gim_many_dst');
  await pg.close();
});

const sink = (t: string) => pg.url(t, 'columns=auto&key=email');

describe('key= merges into a PostgreSQL table with a GENERATED ALWAYS identity column that is not the key', () => {
  it('a second run of the same two rows (the INSERT path) updates them: exit 0, the same identity values', async () => {
    await pg.exec(`DROP TABLE IF EXISTS gim_src, gim_dst; ${DDL('gim_src')}; ${DDL('gim_dst')}`);
    await pg.exec("INSERT INTO gim_src (email, seq, a) OVERRIDING SYSTEM VALUE VALUES ('ann@x', 7, 'one'), ('bob@x', 42, 'two')");
    const first = await bridge(['copy', pg.url('gim_src'), sink('gim_dst'), '--progress', 'none']);
    expect(first.exitCode, String(first.stderr)).toBe(0);
    await pg.exec("UPDATE gim_src SET a = a || ' again'");
    const again = await bridge(['copy', pg.url('gim_src'), sink('gim_dst'), '--progress', 'none']);
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect(await pg.rows('SELECT email, seq, a FROM gim_dst ORDER BY seq')).toEqual([
      { email: 'ann@x', seq: 7, a: 'one again' },
      { email: 'bob@x', seq: 42, a: 'two again' },
    ]);
  });

  it('5,000 rows merged again (the COPY and temporary-table path) keep their identity values, exit 0', async () => {
    await pg.exec(`DROP TABLE IF EXISTS gim_many, gim_many_dst; ${DDL('gim_many')}; ${DDL('gim_many_dst')}`);
    await pg.exec("INSERT INTO gim_many (email, a) SELECT 'u' || g || '@x', 'r' || g FROM generate_series(1, 5000) g");
    for (const round of [1, 2]) {
      if (round === 2) await pg.exec("UPDATE gim_many SET a = a || '!'");
      const r = await bridge(['copy', pg.url('gim_many'), sink('gim_many_dst'), '--progress', 'none']);
      expect(r.exitCode, `round ${round}: ${String(r.stderr)}`).toBe(0);
    }
    expect(await pg.rows("SELECT count(*)::int AS n, count(*) FILTER (WHERE d.seq = s.seq AND d.a = s.a AND d.a LIKE '%!')::int AS same FROM gim_many s JOIN gim_many_dst d USING (email)")).toEqual([{ n: 5000, same: 5000 }]);
  });

  it('a message whose identity value differs from the stored row is refused naming the field: exit 4, nothing of its batch changed', async () => {
    const file = writeNdjson(dir, 'other-seq.ndjson', [
      { email: 'ann@x', seq: 7, a: 'kept' },
      { email: 'bob@x', seq: 43, a: 'refused' },
    ]);
    const r = await bridge(['copy', file, sink('gim_dst'), '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(String(r.stderr)).toMatch(/field seq .*GENERATED ALWAYS AS IDENTITY.* holds 42, the message 43/);
    expect(await pg.rows('SELECT email, seq, a FROM gim_dst ORDER BY seq')).toEqual([
      { email: 'ann@x', seq: 7, a: 'one again' },
      { email: 'bob@x', seq: 42, a: 'two again' },
    ]);
  });

  it('with --dead-letter the refused message goes there with the reason, the others land', async () => {
    const file = writeNdjson(dir, 'other-seq-dead.ndjson', [
      { email: 'ann@x', seq: 7, a: 'landed' },
      { email: 'bob@x', seq: 43, a: 'refused' },
      { email: 'cy@x', seq: 99, a: 'new' },
    ]);
    const dead = path.join(dir, 'dead.ndjson');
    const r = await bridge(['copy', file, sink('gim_dst'), '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows('SELECT email, seq, a FROM gim_dst ORDER BY seq')).toEqual([
      { email: 'ann@x', seq: 7, a: 'landed' },
      { email: 'bob@x', seq: 42, a: 'two again' },
      { email: 'cy@x', seq: 99, a: 'new' },
    ]);
    const letters = parseLines(readFileSync(dead, 'utf8')) as { payload: Record<string, unknown>; metadata: Record<string, string> }[];
    expect(letters.map((l) => l.payload)).toEqual([{ email: 'bob@x', seq: 43, a: 'refused' }]);
    expect(letters[0]!.metadata['bridge.error']).toMatch(/field seq .*GENERATED ALWAYS AS IDENTITY/);
  });
});
