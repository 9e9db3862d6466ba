import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, lines, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
let dbs: TestDb[];
beforeAll(async () => {
  dbs = [await postgres(), await mysqlLike('mariadb'), sqlite(path.join(dir, 'tokens.db'))];
});
afterAll(async () => {
  for (const db of dbs) await db.close();
});

/** Messages with metadata, from an envelope file: the contract's NULL rules need both. */
function envelopes(name: string, rows: { payload: unknown; metadata?: Record<string, string> }[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, rows.map((r) => JSON.stringify({ metadata: r.metadata ?? {}, payload: r.payload })).join('\n') + '\n');
  return `file://${file}?format=envelope`;
}

const DDL: Record<string, string> = {
  postgres: 'CREATE TABLE t_tok (id int, n int, flag boolean, label text, src text, whole text)',
  mariadb: 'CREATE TABLE t_tok (id int, n int, flag boolean, label text, src text, whole text) DEFAULT CHARSET utf8mb4',
  sqlite: 'CREATE TABLE t_tok (id INTEGER, n INTEGER, flag BOOLEAN, label TEXT, src TEXT, whole TEXT)',
};

for (const kind of ['postgres', 'mariadb', 'sqlite'] as const) {
  describe(`${kind}: insert_query tokens (contract §4.1 rules 1–7)`, () => {
    const db = (): TestDb => dbs.find((d) => d.kind === kind)!;
    beforeAll(async () => {
      await db().exec('DROP TABLE IF EXISTS t_tok');
      await db().exec(DDL[kind]!);
    });

    it('binds fields typed, metadata by key, and NULL for absent keys, missing or non-scalar fields, non-JSON payloads', async () => {
      const src = envelopes(`tok-${kind}.ndjson`, [
        { payload: { id: 1, n: 42, flag: true, label: 'a\tb' }, metadata: { tenant: 'acme' } },
        { payload: { id: 2, n: { nested: 1 }, flag: [true], label: null } },
        { payload: { id: 3 } },
        { payload: 'not a JSON object', metadata: { tenant: 'x' } },
      ]);
      const q = 'INSERT INTO t_tok (id, n, flag, label, src, whole) VALUES (${payload:id}, ${payload:n}, ${payload:flag}, ${payload:label}, ${metadata:tenant}, ?)';
      const r = await bridge(['copy', src, `${db().url('t_tok')}&insert_query=${encodeURIComponent(q)}`, '-q']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const rows = await db().rows('SELECT id, n, flag, label, src, whole FROM t_tok');
      const norm = rows
        .map((x) => ({ ...x, id: x.id === null ? null : Number(x.id), n: x.n === null ? null : Number(x.n), flag: x.flag === null ? null : Boolean(Number(x.flag === true ? 1 : x.flag === false ? 0 : x.flag)) }))
        .sort((a, b) => (a.id ?? -1) - (b.id ?? -1));
      expect(norm).toEqual([
        { id: null, n: null, flag: null, label: null, src: 'x', whole: 'not a JSON object' },
        { id: 1, n: 42, flag: true, label: 'a\tb', src: 'acme', whole: '{"id":1,"n":42,"flag":true,"label":"a\\tb"}' },
        { id: 2, n: null, flag: null, label: null, src: null, whole: '{"id":2,"n":{"nested":1},"flag":[true],"label":null}' },
        { id: 3, n: null, flag: null, label: null, src: null, whole: '{"id":3}' },
      ]);
    });

    it('malformed tokens and tokens inside quotes are config errors', async () => {
      for (const [q, msg] of [
        ['INSERT INTO t_tok (id) VALUES (${payload:id)', /malformed token/],
        ['INSERT INTO t_tok (id) VALUES (${row:id})', /unknown token kind "row"/],
        ["INSERT INTO t_tok (label) VALUES ('${payload:label}')", /token inside a quoted string/],
        ['INSERT INTO t_tok (id) VALUES (${payload:})', /empty name/],
      ] as const) {
        const r = await bridge(['copy', '-', `${db().url('t_tok')}&insert_query=${encodeURIComponent(q)}`], { input: '{"id":1}\n' });
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toMatch(msg);
      }
    });
  });
}

describe('postgres: casts, expressions and queries without a VALUES tuple', () => {
  const pg = (): TestDb => dbs[0]!;
  it('keeps ::numeric and ::timestamptz verbatim and handles expressions and INSERT … SELECT', async () => {
    await pg().exec('DROP TABLE IF EXISTS t_cast; CREATE TABLE t_cast (id int, amount numeric(12,2), at timestamptz, twice int)');
    const src = envelopes('cast.ndjson', [
      { payload: { id: 1, amount: '12.30', at: '2024-01-02T03:04:05.123456Z' } },
      { payload: { id: 2, amount: '0.10', at: '2024-01-02 05:04:05+02' } },
    ]);
    const q = 'INSERT INTO t_cast (id, amount, at, twice) VALUES (${payload:id}, ${payload:amount}::numeric, ${payload:at}::timestamptz, ${payload:id}::int * 2)';
    expect((await bridge(['copy', src, `${pg().url('t_cast')}&insert_query=${encodeURIComponent(q)}`, '-q'])).exitCode).toBe(0);
    const sel = 'INSERT INTO t_cast (id, amount) SELECT ${payload:id}::int + 100, ${payload:amount}::numeric WHERE true';
    expect((await bridge(['copy', src, `${pg().url('t_cast')}&insert_query=${encodeURIComponent(sel)}`, '-q'])).exitCode).toBe(0);
    const rows = await pg().rows("SELECT id, amount::text, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS at, twice FROM t_cast ORDER BY id");
    expect(rows).toEqual([
      { id: 1, amount: '12.30', at: '2024-01-02 03:04:05.123456', twice: 2 },
      { id: 2, amount: '0.10', at: '2024-01-02 03:04:05.000000', twice: 4 },
      { id: 101, amount: '12.30', at: null, twice: null },
      { id: 102, amount: '0.10', at: null, twice: null },
    ]);
  });

  it('--dry-run shows how the query is batched', async () => {
    const q = 'INSERT INTO t_cast (id) VALUES (${payload:id})';
    const r = await bridge(['copy', '-', `${pg().url('t_cast')}&insert_query=${encodeURIComponent(q)}`, '--dry-run'], { input: '' });
    expect(lines(r.stdout)).toContain('  sink batching: multi-row VALUES, one transaction per batch');
  });
});
