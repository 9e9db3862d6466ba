import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * A migration of the shop schema (scripts/bench-migrate) converted every row of its tables with a
 * `timestamp` column, value by value, although the rows could go as they are: the table bridge
 * creates says `timestamp(6)`, the source said `timestamp`, and the two spellings were taken for
 * different types. They keep the same microseconds (PostgreSQL's default precision is 6), as do
 * timestamptz, time and timetz: such a table is copied unchanged, as binary COPY ranges.
 */
let pg: TestDb;
const COLS = 'id int PRIMARY KEY, a timestamp, b timestamptz, c time, d timetz, e timestamp(6), f timestamp(3)';
beforeAll(async () => {
  pg = await postgres();
  await pg.exec(`DROP TABLE IF EXISTS typmod_src, typmod_made, typmod_declared; CREATE TABLE typmod_src (${COLS})`);
  await pg.exec(`INSERT INTO typmod_src SELECT i, timestamp '2024-02-29 23:59:59.999999' - i * interval '1.000001 s', timestamptz '1999-12-31 23:00:00.5+05' + i * interval '1 min',
    time '00:00:00.000001' + i * interval '1 s', timetz '12:00:00.25+03', CASE WHEN i % 7 = 0 THEN NULL ELSE timestamp '0044-03-15 12:00:00 BC' END, timestamp '2000-01-01 00:00:00.123' FROM generate_series(1, 3000) i`);
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS typmod_src, typmod_made, typmod_declared');
  await pg.close();
});

const digest = (t: string): string => `SELECT count(*)::int AS n, md5(string_agg(concat_ws('|', id, a, b, c, d, e, f), '/' ORDER BY id)) AS h FROM ${t}`;

describe('timestamp and timestamp(6) are one type to PostgreSQL -> PostgreSQL copies', () => {
  it('into a table bridge creates: the rows go unchanged (binary ranges), the same values', async () => {
    const r = await bridge(['copy', `${PG_URL}?table=typmod_src`, `${PG_URL}?table=typmod_made&columns=auto&auto_create_table=true`, '-q']);
    expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
    expect(await pg.rows(digest('typmod_made'))).toEqual(await pg.rows(digest('typmod_src')));
    const plan = await bridge(['copy', `${PG_URL}?table=typmod_src`, `${PG_URL}?table=typmod_made&columns=auto`, '--dry-run']);
    expect(plan.stdout).toMatch(/source mode: .*ranges read as binary COPY/);
  });

  it('into a table declared with (6) everywhere: the same', async () => {
    await pg.exec('CREATE TABLE typmod_declared (id int PRIMARY KEY, a timestamp(6), b timestamptz(6), c time(6), d timetz(6), e timestamp, f timestamp(3))');
    const plan = await bridge(['copy', `${PG_URL}?table=typmod_src`, `${PG_URL}?table=typmod_declared&columns=auto`, '--dry-run']);
    expect(plan.stdout).toMatch(/source mode: .*ranges read as binary COPY/);
    const r = await bridge(['copy', `${PG_URL}?table=typmod_src`, `${PG_URL}?table=typmod_declared&columns=auto`, '-q']);
    expect(r.exitCode).toBe(0);
    expect(await pg.rows(digest('typmod_declared'))).toEqual(await pg.rows(digest('typmod_src')));
  });

  it('timestamp(3) into timestamp(6) is still converted: it is another type', async () => {
    await pg.exec('DROP TABLE IF EXISTS typmod_declared; CREATE TABLE typmod_declared (id int PRIMARY KEY, a timestamp, b timestamptz, c time, d timetz, e timestamp, f timestamp(6))');
    const plan = await bridge(['copy', `${PG_URL}?table=typmod_src`, `${PG_URL}?table=typmod_declared&columns=auto`, '--dry-run']);
    expect(plan.stdout).not.toMatch(/ranges read as binary COPY/);
  });
});
