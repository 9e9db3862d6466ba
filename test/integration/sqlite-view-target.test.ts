import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { sqlite, type TestDb } from '../helpers/databases.js';

/**
 * A SQLite view named as the target of columns=auto: SQLite writes into a view only through an
 * INSTEAD OF INSERT trigger. Without one the copy failed with exit 1, 'cannot modify v because it
 * is a view', as if the run had broken; it is the route's mistake, so exit 2 naming the view and
 * the fix, before any row is read. A view with the trigger is written through it.
 */
const dir = tempDir();
let lite: TestDb;
const rows = [
  { id: 1, a: 'x' },
  { id: 2, a: 'y' },
];

beforeAll(async () => {
  lite = sqlite(path.join(dir, 'views.db'));
  await lite.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT);
    CREATE VIEW plain_v AS SELECT id, a FROM t;
    CREATE VIEW Written_V AS SELECT id, a FROM t;
    CREATE TRIGGER written_v_ins INSTEAD OF INSERT ON Written_V BEGIN INSERT INTO t (id, a) VALUES (NEW.id, NEW.a); END;`);
});
afterAll(async () => {
  await lite.close();
});

describe('a SQLite view as the target', () => {
  const file = () => writeNdjson(dir, 'rows.ndjson', rows);

  for (const dry of [false, true]) {
    it(`without an INSTEAD OF INSERT trigger${dry ? ' (--dry-run)' : ''}: exit 2 naming the view and the fix, nothing written`, async () => {
      const r = await bridge(['copy', file(), lite.url('plain_v', 'columns=auto'), '--progress', 'none', ...(dry ? ['--dry-run'] : [])]);
      expect(r.exitCode, String(r.stderr)).toBe(2);
      expect(String(r.stderr)).toMatch(/plain_v is a SQLite view without an INSTEAD OF INSERT trigger.*table=/);
      expect(await lite.rows('SELECT count(*) AS n FROM t')).toEqual([{ n: 0n }]);
    });
  }

  it('with one (the view named in another case): the rows go through it, exit 0', async () => {
    const r = await bridge(['copy', file(), lite.url('written_v', 'columns=auto'), '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await lite.rows('SELECT id, a FROM t ORDER BY id')).toEqual([
      { id: 1n, a: 'x' },
      { id: 2n, a: 'y' },
    ]);
  });
});
