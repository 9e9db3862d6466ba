import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { postgres, type TestDb } from '../helpers/databases.js';

/**
 * Found probing PostgreSQL → PostgreSQL with a schema of its own kind: a table keyed by
 * `GENERATED ALWAYS AS IDENTITY` (what `serial` became) beside a generated column. 20,000 rows copied exactly (COPY writes
 * the values given for an identity column), but 2 rows failed with exit 1, "cannot insert a
 * non-DEFAULT value into column "c"": small batches go by INSERT, which must be told OVERRIDING
 * SYSTEM VALUE. Both paths now keep the source's identity values.
 */
const dir = tempDir();
let pg: TestDb;
const DDL = (t: string): string => `CREATE TABLE ${t} (c int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, a text, n int GENERATED ALWAYS AS (length(a)) STORED)`;

beforeAll(async () => {
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS ida_src, ida_dst, ida_many, ida_many_dst, ida_file');
  await pg.exec(DDL('ida_src'));
  await pg.exec("INSERT INTO ida_src (c, a) OVERRIDING SYSTEM VALUE VALUES (7, 'seven'), (42, 'forty-two')");
  await pg.exec(DDL('ida_dst'));
  await pg.exec(DDL('ida_many'));
  await pg.exec("INSERT INTO ida_many (a) SELECT 'r' || g FROM generate_series(1, 5000) g");
  await pg.exec(DDL('ida_many_dst'));
  await pg.exec(DDL('ida_file'));
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS ida_src, ida_dst, ida_many, ida_many_dst, ida_file');
  await pg.close();
});

const copy = (from: string, to: string) => bridge(['copy', from, to, '--progress', 'none']);

describe('a PostgreSQL target whose key is GENERATED ALWAYS AS IDENTITY', () => {
  it('two rows (the INSERT path) land with their own identity values, exit 0', async () => {
    const r = await copy(pg.url('ida_src'), pg.url('ida_dst', 'columns=auto'));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows('SELECT c, a FROM ida_dst ORDER BY c')).toEqual([
      { c: 7, a: 'seven' },
      { c: 42, a: 'forty-two' },
    ]);
  });

  it('5,000 rows (the COPY path) land with their own identity values', async () => {
    const r = await copy(pg.url('ida_many'), pg.url('ida_many_dst', 'columns=auto'));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows('SELECT count(*)::int AS n, sum(c)::int AS s FROM ida_many_dst')).toEqual([{ n: 5000, s: 12502500 }]);
  });

  it('NDJSON rows naming the identity column land with those values', async () => {
    const file = writeNdjson(dir, 'ida.ndjson', [
      { c: 100, a: 'x' },
      { c: 5, a: 'y' },
    ]);
    const r = await copy(file, pg.url('ida_file', 'columns=auto'));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows('SELECT c, a FROM ida_file ORDER BY c')).toEqual([
      { c: 5, a: 'y' },
      { c: 100, a: 'x' },
    ]);
  });
});
