import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, tempDir, writeNdjson } from '../helpers/bridge.js';
import { allKinds, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
let dbs: TestDb[];
beforeAll(async () => {
  dbs = await allKinds(path.join(dir, 'columns.db'));
});
afterAll(async () => {
  for (const db of dbs) await db.close();
});

const ndjson = (name: string, rows: unknown[]): string => writeNdjson(dir, name, rows);

const N = 10_000;
const DDL: Record<TestDb['kind'], (t: string) => string> = {
  postgres: (t) => `CREATE TABLE ${t} (id int PRIMARY KEY, name text, amount numeric(12,2), extra jsonb)`,
  mysql: (t) => `CREATE TABLE ${t} (id int PRIMARY KEY, name varchar(50), amount decimal(12,2), extra json)`,
  mariadb: (t) => `CREATE TABLE ${t} (id int PRIMARY KEY, name varchar(50), amount decimal(12,2), extra json)`,
  sqlite: (t) => `CREATE TABLE ${t} (id INTEGER PRIMARY KEY, name TEXT, amount TEXT, extra JSON)`,
};
const COMPOSITE: Record<TestDb['kind'], (t: string) => string> = {
  postgres: (t) => `CREATE TABLE ${t} (tenant text, id int, v text, PRIMARY KEY (tenant, id))`,
  mysql: (t) => `CREATE TABLE ${t} (tenant varchar(20), id int, v text, PRIMARY KEY (tenant, id))`,
  mariadb: (t) => `CREATE TABLE ${t} (tenant varchar(20), id int, v text, PRIMARY KEY (tenant, id))`,
  sqlite: (t) => `CREATE TABLE ${t} (tenant TEXT, id INTEGER, v TEXT, PRIMARY KEY (tenant, id))`,
};

for (const kind of ['postgres', 'mysql', 'mariadb', 'sqlite'] as const) {
  describe(`${kind}: columns=auto`, () => {
    const db = (): TestDb => dbs.find((d) => d.kind === kind)!;
    const t = `t_cols_${kind}`;

    it('copying the same 10k rows twice with key leaves 10k rows holding the second run', async () => {
      await db().exec(`DROP TABLE IF EXISTS ${t}`);
      await db().exec(DDL[kind](t));
      const first = ndjson(`first-${kind}.ndjson`, Array.from({ length: N }, (_, i) => ({ id: i, name: `first ${i}`, amount: '1.50' })));
      const second = ndjson(`second-${kind}.ndjson`, Array.from({ length: N }, (_, i) => ({ id: i, name: `second ${i}`, amount: `${i}.25` })));
      for (const src of [first, second]) {
        const r = await bridge(['copy', src, db().url(t, 'columns=auto&key=id'), '-q']);
        expect(r.stderr).toBe('');
        expect(r.exitCode).toBe(0);
      }
      const rows = await db().rows(`SELECT COUNT(*) AS n, SUM(CASE WHEN name LIKE 'second %' THEN 1 ELSE 0 END) AS second FROM ${t}`);
      expect(Number(rows[0]!.n)).toBe(N);
      expect(Number(rows[0]!.second)).toBe(N);
      const one = await db().rows(`SELECT name, amount FROM ${t} WHERE id = 77`);
      expect(one.map((x) => ({ name: x.name, amount: String(x.amount) }))).toEqual([{ name: 'second 77', amount: '77.25' }]);
    });

    it('a batch holding the same key twice keeps the last; a composite key works', async () => {
      const c = `t_comp_${kind}`;
      await db().exec(`DROP TABLE IF EXISTS ${c}`);
      await db().exec(COMPOSITE[kind](c));
      const src = ndjson(`comp-${kind}.ndjson`, [
        { tenant: 'a', id: 1, v: 'old' },
        { tenant: 'b', id: 1, v: 'other tenant' },
        { tenant: 'a', id: 1, v: 'new' },
      ]);
      const r = await bridge(['copy', src, db().url(c, 'columns=auto&key=tenant,id'), '-q']);
      expect(r.exitCode).toBe(0);
      const rows = await db().rows(`SELECT tenant, id, v FROM ${c} ORDER BY tenant, id`);
      expect(rows.map((x) => [x.tenant, Number(x.id), x.v])).toEqual([
        ['a', 1, 'new'],
        ['b', 1, 'other tenant'],
      ]);
    });

    it('300 rows with key=id but no id field, into a table whose id has a default: every row lands with a key of its own', async () => {
      const serial: Record<TestDb['kind'], string> = {
        postgres: 'id serial PRIMARY KEY, v text',
        mysql: 'id int AUTO_INCREMENT PRIMARY KEY, v text',
        mariadb: 'id int AUTO_INCREMENT PRIMARY KEY, v text',
        sqlite: 'id INTEGER PRIMARY KEY, v TEXT',
      };
      const k = `t_nokey_${kind}`;
      await db().exec(`DROP TABLE IF EXISTS ${k}`);
      await db().exec(`CREATE TABLE ${k} (${serial[kind]})`);
      const src = ndjson(`nokey-${kind}.ndjson`, Array.from({ length: 300 }, (_, i) => ({ v: `v${i}` })));
      const r = await bridge(['copy', src, db().url(k, 'columns=auto&key=id'), '-q']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect((await db().rows(`SELECT count(DISTINCT id) AS n, count(DISTINCT v) AS v FROM ${k}`)).map((x) => [Number(x.n), Number(x.v)])).toEqual([[300, 300]]);
    });

    it('unmatched fields go to extra_column as one object; without it they are dropped, warned once and counted', async () => {
      await db().exec(`DELETE FROM ${t}`);
      const src = ndjson(`extra-${kind}.ndjson`, [
        { id: 1, NAME: 'case-insensitive match', color: 'red', tags: [1, 2], price: 30.0 },
        { id: 2, name: 'b', color: 'blue' },
      ]);
      const withExtra = await bridge(['copy', src, db().url(t, 'columns=auto&extra_column=extra'), '-q']);
      expect(withExtra.exitCode).toBe(0);
      const rows = await db().rows(`SELECT id, name, extra FROM ${t} ORDER BY id`);
      const extra = rows.map((x) => (typeof x.extra === 'string' ? JSON.parse(x.extra) : x.extra));
      expect(rows.map((x) => x.name)).toEqual(['case-insensitive match', 'b']);
      expect(extra).toEqual([{ color: 'red', tags: [1, 2], price: 30 }, { color: 'blue' }]);

      await db().exec(`DELETE FROM ${t}`);
      const dropped = await bridge(['copy', src, db().url(t, 'columns=auto'), '--progress', 'plain']);
      expect(dropped.exitCode).toBe(0);
      expect(dropped.stderr.match(/warning: payload fields color, tags, price have no column/g)).toHaveLength(1);
      expect(dropped.stderr).toMatch(/done: 2 rows .*4 fields dropped/);
    });
  });
}

describe('auto_create_table', () => {
  for (const kind of ['postgres', 'mariadb', 'sqlite'] as const) {
    it(`${kind}: two processes creating the same queue table at once both succeed`, async () => {
      const db = dbs.find((d) => d.kind === kind)!;
      const t = `t_race_${kind}`;
      await db.exec(`DROP TABLE IF EXISTS ${t}`);
      const src = ndjson(`race-${kind}.ndjson`, Array.from({ length: 100 }, (_, i) => ({ i })));
      const procs = [0, 1, 2].map(() => spawnBridge(['copy', src, db.url(t, 'auto_create_table=true'), '-q']));
      const results = await Promise.all(procs);
      for (const r of results) expect({ code: r.exitCode, err: String(r.stderr) }).toEqual({ code: 0, err: '' });
      expect(Number((await db.rows(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n)).toBe(300);
    });
  }
});
