import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { postgres, type TestDb } from '../helpers/databases.js';

/**
 * Found probing PostgreSQL targets: an updatable view (a plain `CREATE VIEW v AS SELECT … FROM t`,
 * what schemas expose to writers instead of their tables) takes INSERTs, but COPY refuses it
 * ("cannot copy to view"): a 5,000-row copy into it failed with exit 1 and nothing written, where
 * a 2-row one (INSERT path) worked. A view target now always takes multi-row INSERTs.
 */
const dir = tempDir();
let pg: TestDb;

beforeAll(async () => {
  pg = await postgres();
  await pg.exec('DROP VIEW IF EXISTS pv_rows, pv_docs');
  await pg.exec('DROP TABLE IF EXISTS pv_base, pv_src, pv_docs_base');
  await pg.exec('CREATE TABLE pv_base (id int PRIMARY KEY, a text, hidden text DEFAULT \'kept\')');
  await pg.exec('CREATE VIEW pv_rows AS SELECT id, a FROM pv_base');
  await pg.exec('CREATE TABLE pv_src (id int PRIMARY KEY, a text)');
  await pg.exec("INSERT INTO pv_src SELECT g, 'x' || g FROM generate_series(1, 5000) g");
  await pg.exec('CREATE TABLE pv_docs_base (id bigserial PRIMARY KEY, payload jsonb)');
  await pg.exec('CREATE VIEW pv_docs AS SELECT id, payload FROM pv_docs_base');
});
afterAll(async () => {
  await pg.exec('DROP VIEW IF EXISTS pv_rows, pv_docs');
  await pg.exec('DROP TABLE IF EXISTS pv_base, pv_src, pv_docs_base');
  await pg.close();
});

describe('a PostgreSQL updatable view as the target', () => {
  it('5,000 rows with columns=auto land in the view\'s table, exit 0', async () => {
    const r = await bridge(['copy', pg.url('pv_src'), pg.url('pv_rows', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows("SELECT count(*)::int AS n, sum(id)::int AS s, count(*) FILTER (WHERE a = 'x' || id AND hidden = 'kept')::int AS same FROM pv_base")).toEqual([{ n: 5000, s: 12502500, same: 5000 }]);
  });

  it('whole messages into a view\'s payload column land as documents', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ n: i, s: `v${i}` }));
    const r = await bridge(['copy', writeNdjson(dir, 'docs.ndjson', rows), pg.url('pv_docs'), '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows("SELECT count(*)::int AS n, sum((payload->>'n')::int)::int AS s FROM pv_docs_base")).toEqual([{ n: 3000, s: 4498500 }]);
  });
});
