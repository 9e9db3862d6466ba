import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres } from '../helpers/databases.js';

/**
 * Reported: an `ANY` column of a STRICT table copied SQLite → SQLite into a table bridge creates
 * (columns=auto&auto_create_table=true) lost STRICT, so the column took NUMERIC affinity: '42' (text)
 * became the integer 42 and '1e3' became 1000. Typed creation keeps STRICT and WITHOUT ROWID when
 * the source table has them and the target is SQLite too.
 */
const dir = tempDir();
const srcFile = path.join(dir, 'src.db');
let src: Database.Database;

beforeAll(() => {
  src = new Database(srcFile);
  src.exec(`
    CREATE TABLE loose_values (id INTEGER PRIMARY KEY, v ANY, t TEXT NOT NULL) STRICT;
    INSERT INTO loose_values VALUES (1, '42', 'a'), (2, '1e3', 'b'), (3, 42, 'c'), (4, x'00ff', 'd'), (5, 1.5, 'e'), (6, NULL, 'f'), (7, ' 7 ', 'g'), (8, '0x10', 'h');
    CREATE TABLE stock (sku TEXT NOT NULL, warehouse INTEGER NOT NULL, qty ANY, PRIMARY KEY (sku, warehouse)) STRICT, WITHOUT ROWID;
    INSERT INTO stock VALUES ('a', 1, '10'), ('b', 2, 3.0), ('c', 3, 7);
    CREATE TABLE plain (id INTEGER PRIMARY KEY, v ANY);
    INSERT INTO plain VALUES (1, '42');
  `);
});
afterAll(() => src.close());

/** What the catalogue says of a table: strict and without-rowid flags. */
function flags(db: Database.Database, table: string): { strict: number; wr: number } {
  const r = db.prepare('SELECT strict, wr FROM pragma_table_list WHERE name = ?').get(table) as { strict: number; wr: number };
  return { strict: Number(r.strict), wr: Number(r.wr) };
}

const classes = (db: Database.Database, table: string, key: string, col: string): unknown[] =>
  db.prepare(`SELECT ${key} AS k, ${col} AS v, typeof(${col}) AS class, CAST(${col} AS TEXT) AS text FROM ${table} ORDER BY ${key}`).all();

describe('SQLite STRICT tables copied SQLite → SQLite into a created table', () => {
  it('an ANY column keeps every value with its storage class and exact text (the table is created STRICT)', async () => {
    const dst = path.join(dir, 'strict-any.db');
    const r = await bridge(['copy', `sqlite://${srcFile}?table=loose_values`, `sqlite://${dst}?table=loose_values&columns=auto&auto_create_table=true`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = new Database(dst);
    try {
      expect(flags(out, 'loose_values')).toEqual({ strict: 1, wr: 0 });
      expect(classes(out, 'loose_values', 'id', 'v')).toEqual(classes(src, 'loose_values', 'id', 'v'));
      expect(out.prepare("SELECT id FROM loose_values WHERE v = '42'").all()).toEqual([{ id: 1 }]);
    } finally {
      out.close();
    }
  });

  it('a STRICT, WITHOUT ROWID table is created STRICT, WITHOUT ROWID, with its values unchanged', async () => {
    const dst = path.join(dir, 'strict-wr.db');
    const r = await bridge(['copy', `sqlite://${srcFile}?table=stock`, `sqlite://${dst}?table=stock&columns=auto&auto_create_table=true`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = new Database(dst);
    try {
      expect(flags(out, 'stock')).toEqual({ strict: 1, wr: 1 });
      expect(classes(out, 'stock', 'sku', 'qty')).toEqual(classes(src, 'stock', 'sku', 'qty'));
    } finally {
      out.close();
    }
  });

  it('the dry run shows the STRICT table it would create, and flags nothing', async () => {
    const dst = path.join(dir, 'strict-dry.db');
    const r = await bridge(['copy', `sqlite://${srcFile}?table=loose_values`, `sqlite://${dst}?table=loose_values&columns=auto&auto_create_table=true`, '--dry-run', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/would be created: CREATE TABLE IF NOT EXISTS "loose_values" \(.*\) STRICT\)/);
    expect(r.stdout).not.toMatch(/LOSSY|REJECTS/);
  });

  it('a table that is not STRICT is created as it was (not STRICT)', async () => {
    const dst = path.join(dir, 'plain.db');
    const r = await bridge(['copy', `sqlite://${srcFile}?table=plain`, `sqlite://${dst}?table=plain&columns=auto&auto_create_table=true`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = new Database(dst);
    try {
      expect(flags(out, 'plain')).toEqual({ strict: 0, wr: 0 });
    } finally {
      out.close();
    }
  });

  it('an ANY column into a PostgreSQL text column: numbers and blobs land as text and are counted lossy, text values are not (the run counts what the dry run flags)', async () => {
    const pg = await postgres();
    try {
      await pg.exec('DROP TABLE IF EXISTS any_into_text');
      const dst = `${PG_URL}?table=any_into_text&columns=auto&auto_create_table=true`;
      const dry = await bridge(['copy', `sqlite://${srcFile}?table=loose_values`, dst, '--dry-run']);
      expect(dry.stdout).toMatch(/v ANY → v text .*LOSSY: 1 blob value land as text.*1 integer value.*1 real value/);
      const r = await bridge(['copy', `sqlite://${srcFile}?table=loose_values`, dst, '--progress', 'plain']);
      expect(r.exitCode, r.stderr).toBe(0);
      // 42, x'00ff' and 1.5 change storage class; '42', '1e3', ' 7 ', '0x10' are text already, NULL is NULL.
      expect(r.stderr).toMatch(/done: 8 rows .*, 3 values converted lossily/);
      expect((await pg.rows('SELECT id, v FROM any_into_text ORDER BY id')).map((x) => x.v)).toEqual(['42', '1e3', '42', 'AP8=', '1.5', null, ' 7 ', '0x10']);
    } finally {
      await pg.exec('DROP TABLE IF EXISTS any_into_text');
      await pg.close();
    }
  });
});
