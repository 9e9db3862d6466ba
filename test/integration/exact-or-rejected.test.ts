import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { allKinds, type TestDb } from '../helpers/databases.js';

/** Issue 11: one regression test per value that used to change without a word. */
const dir = tempDir();
let dbs: TestDb[];
const db = (k: TestDb['kind']): TestDb => dbs.find((d) => d.kind === k)!;
const dead = (file: string) => parseLines(readFileSync(file, 'utf8')) as { payload: Record<string, unknown>; metadata: Record<string, string> }[];

beforeAll(async () => {
  dbs = await allKinds(path.join(dir, 'exact.db'));
});
afterAll(async () => {
  for (const d of dbs) await d.close();
});

describe('exact or rejected', () => {
  it('JSON false into a decimal column lands as 0 on every kind (SQLite stored 1)', async () => {
    const file = path.join(dir, 'bools.ndjson');
    writeFileSync(file, '{"k":1,"d":false}\n{"k":2,"d":true}\n');
    for (const k of ['postgres', 'mysql', 'sqlite'] as const) {
      await db(k).exec('DROP TABLE IF EXISTS b_dec');
      await db(k).exec('CREATE TABLE b_dec (k int PRIMARY KEY, d decimal(10,2))');
      const r = await bridge(['copy', `file://${file}`, db(k).url('b_dec', 'columns=auto'), '-q']);
      expect({ k, code: r.exitCode, err: r.stderr }).toEqual({ k, code: 0, err: '' });
      const rows = await db(k).rows('SELECT k, d FROM b_dec ORDER BY k');
      expect(rows.map((x) => Number(x.d))).toEqual([0, 1]);
    }
  });

  it('SQLite TEXT holding JSON lands in jsonb and MariaDB JSON as the document; text that is not JSON is rejected', async () => {
    const lite = db('sqlite');
    await lite.exec(`DROP TABLE IF EXISTS j_src; CREATE TABLE j_src (id INTEGER PRIMARY KEY, doc TEXT); INSERT INTO j_src VALUES (1, '{"a":30.00}'), (2, 'not json')`);
    await db('postgres').exec('DROP TABLE IF EXISTS j_dst; CREATE TABLE j_dst (id int PRIMARY KEY, doc jsonb)');
    await db('mariadb').exec('DROP TABLE IF EXISTS j_dst; CREATE TABLE j_dst (id int PRIMARY KEY, doc JSON)');
    for (const k of ['postgres', 'mariadb'] as const) {
      const file = path.join(dir, `j-${k}.ndjson`);
      const r = await bridge(['copy', lite.url('j_src'), db(k).url('j_dst', 'columns=auto'), '--dead-letter', `file://${file}`]);
      expect(r.exitCode).toBe(0);
      const rows = await db(k).rows(k === 'postgres' ? 'SELECT id, doc::text AS doc, jsonb_typeof(doc) AS t FROM j_dst' : 'SELECT id, CAST(doc AS CHAR) AS doc, JSON_TYPE(doc) AS t FROM j_dst');
      expect(rows).toEqual([{ id: 1, doc: k === 'postgres' ? '{"a": 30.00}' : '{"a":30.00}', t: k === 'postgres' ? 'object' : 'OBJECT' }]);
      expect(dead(file)[0]!.metadata['bridge.error']).toMatch(/field doc is text that is not JSON \("not json"\)/);
    }
  });

  it('a batch of SQLite rows copied into jsonb with one text that is not JSON: the other rows land, the dead letter names the field', async () => {
    // Rows into PostgreSQL leave the JSON check to its parser (COPY); the batch it refuses is written again as messages.
    const lite = db('sqlite');
    const docs = Array.from({ length: 3000 }, (_, i) => `(${i + 1}, '${i === 1499 ? '{"a":' : `{"n":${i},"s":"é\\t😀"}`}')`);
    await lite.exec(`DROP TABLE IF EXISTS jb_src; CREATE TABLE jb_src (id INTEGER PRIMARY KEY, doc TEXT); INSERT INTO jb_src VALUES ${docs.join(',')}`);
    await db('postgres').exec('DROP TABLE IF EXISTS jb_dst; CREATE TABLE jb_dst (id int PRIMARY KEY, doc jsonb)');
    const file = path.join(dir, 'jb.ndjson');
    const r = await bridge(['copy', lite.url('jb_src'), db('postgres').url('jb_dst', 'columns=auto'), '--dead-letter', `file://${file}`, '--batch-size', '3000']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await db('postgres').rows("SELECT count(*)::int AS n, count(*) FILTER (WHERE doc->>'s' = 'é\t😀')::int AS same FROM jb_dst")).toEqual([{ n: 2999, same: 2999 }]);
    expect(dead(file).map((d) => d.metadata['bridge.error'])).toEqual([expect.stringMatching(/field doc is text that is not JSON \("\{\\"a\\":"\)/)]);
  });

  it('text "abc" and float8 NaN into SQLite INTEGER/REAL columns are rejected, not stored as NULL', async () => {
    await db('postgres').exec("DROP TABLE IF EXISTS n_src; CREATE TABLE n_src (id int PRIMARY KEY, i text, r float8); INSERT INTO n_src VALUES (1, 'abc', 1.5), (2, '42', 'NaN'), (3, '7', 2.5)");
    await db('sqlite').exec('DROP TABLE IF EXISTS n_dst; CREATE TABLE n_dst (id INTEGER PRIMARY KEY, i INTEGER, r REAL)');
    const file = path.join(dir, 'n.ndjson');
    const r = await bridge(['copy', db('postgres').url('n_src'), db('sqlite').url('n_dst', 'columns=auto'), '--dead-letter', `file://${file}`]);
    expect(r.exitCode).toBe(0);
    expect(await db('sqlite').rows('SELECT id, typeof(i) AS ti, i, r FROM n_dst')).toEqual([{ id: 3n, ti: 'integer', i: 7n, r: 2.5 }]);
    expect(dead(file).map((d) => d.metadata['bridge.error'])).toEqual([expect.stringMatching(/field i is "abc", not an integer for INTEGER/), expect.stringMatching(/field r is NaN, which REAL cannot hold/)]);
  });

  it('SQLite → SQLite keeps the storage class of every value of a column without a declared type', async () => {
    const lite = db('sqlite');
    await lite.exec("DROP TABLE IF EXISTS u_src; CREATE TABLE u_src (id INTEGER PRIMARY KEY, v); INSERT INTO u_src VALUES (1, 42), (2, 2.5), (3, X'00FF'), (4, '42'), (5, 'text')");
    await lite.exec('DROP TABLE IF EXISTS u_dst; CREATE TABLE u_dst (id INTEGER PRIMARY KEY, v)');
    const r = await bridge(['copy', lite.url('u_src'), lite.url('u_dst', 'columns=auto'), '-q']);
    expect(r.exitCode).toBe(0);
    const q = 'SELECT id, typeof(v) AS t, quote(v) AS v FROM ';
    expect(await lite.rows(`${q} u_dst`)).toEqual(await lite.rows(`${q} u_src`));
  });

  it('MariaDB YEAR 0000 stays 0000 (not 2000), and TINYINT(1) keeps 127 and -128', async () => {
    const my = db('mariadb');
    await my.exec("SET SESSION sql_mode = ''; DROP TABLE IF EXISTS y_src; CREATE TABLE y_src (id int PRIMARY KEY, y YEAR, b TINYINT(1)); INSERT INTO y_src VALUES (1, 0, 127), (2, 2024, -128), (3, 1901, 1); SET SESSION sql_mode = DEFAULT");
    await my.exec('DROP TABLE IF EXISTS y_dst; CREATE TABLE y_dst LIKE y_src');
    const r = await bridge(['copy', my.url('y_src'), my.url('y_dst', 'columns=auto'), '-q']);
    expect(r.exitCode).toBe(0);
    expect(await my.rows('SELECT id, CAST(y AS CHAR) AS y, b FROM y_dst ORDER BY id')).toEqual([
      { id: 1, y: '0000', b: 127 },
      { id: 2, y: '2024', b: -128 },
      { id: 3, y: '1901', b: 1 },
    ]);
  });

  it('a SQLite REAL 1.5 in an INTEGER column is rejected by a MariaDB BIGINT, not rounded to 2', async () => {
    await db('sqlite').exec('DROP TABLE IF EXISTS r_src; CREATE TABLE r_src (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO r_src VALUES (1, 1.5), (2, 3)');
    await db('mariadb').exec('DROP TABLE IF EXISTS r_dst; CREATE TABLE r_dst (id int PRIMARY KEY, n BIGINT)');
    const r = await bridge(['copy', db('sqlite').url('r_src'), db('mariadb').url('r_dst', 'columns=auto')]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/field n is "1.5": bigint\(20\) would drop its fraction/);
    expect(await db('mariadb').rows('SELECT * FROM r_dst')).toEqual([]);
  });

  it('MariaDB BIGINT UNSIGNED beyond 2^63 into SQLite is a rejection (dead letter), not exit 1', async () => {
    await db('mariadb').exec('DROP TABLE IF EXISTS b_src; CREATE TABLE b_src (id int PRIMARY KEY, n BIGINT UNSIGNED); INSERT INTO b_src VALUES (1, 18446744073709551615), (2, 9223372036854775807)');
    await db('sqlite').exec('DROP TABLE IF EXISTS b_dst; CREATE TABLE b_dst (id INTEGER PRIMARY KEY, n INTEGER)');
    const file = path.join(dir, 'b.ndjson');
    const r = await bridge(['copy', db('mariadb').url('b_src'), db('sqlite').url('b_dst', 'columns=auto'), '--dead-letter', `file://${file}`]);
    expect(r.exitCode).toBe(0);
    expect(await db('sqlite').rows('SELECT id, n FROM b_dst')).toEqual([{ id: 2n, n: 9223372036854775807n }]);
    expect(dead(file)[0]!.metadata['bridge.error']).toMatch(/field n is 18446744073709551615, beyond SQLite's 64-bit integers/);
    const noDead = await bridge(['copy', db('mariadb').url('b_src'), db('sqlite').url('b_dst', 'columns=auto&key=id')]);
    expect(noDead.exitCode).toBe(4);
  });

  it('a message none of whose fields is a column (camelCase into snake_case) is rejected, not counted as written with nothing written', async () => {
    for (const d of dbs) {
      await d.exec('DROP TABLE IF EXISTS nf_dst');
      await d.exec(`CREATE TABLE nf_dst (${d.kind === 'postgres' ? 'id bigserial PRIMARY KEY' : d.kind === 'sqlite' ? 'id INTEGER PRIMARY KEY' : 'id bigint AUTO_INCREMENT PRIMARY KEY'}, user_id int, note text)`);
      const src = path.join(dir, `nf-${d.kind}.ndjson`);
      writeFileSync(src, '{"user_id":1,"note":"a"}\n{"userId":2,"noteText":"b"}\n{}\n{"user_id":3,"extra":"x"}\n');
      const file = path.join(dir, `nf-${d.kind}.dead.ndjson`);
      const r = await bridge(['copy', `file://${src}`, d.url('nf_dst', 'columns=auto'), '--dead-letter', `file://${file}`]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/done: 2 rows .* 2 dead-lettered/);
      expect((await d.rows('SELECT user_id, note FROM nf_dst ORDER BY user_id')).map((x) => `${String(x.user_id)}|${String(x.note)}`)).toEqual(['1|a', '3|null']);
      const got = dead(file);
      expect(got.map((g) => g.payload)).toEqual([{ userId: 2, noteText: 'b' }, {}]);
      expect(got[0]!.metadata['bridge.error']).toMatch(/no field of it is a column of nf_dst \(it has userId, noteText\)/);
      const plain = await bridge(['copy', `file://${src}`, d.url('nf_dst', 'columns=auto')]);
      expect(plain.exitCode).toBe(4);
    }
  });

  it("ENUM '' into MariaDB is a rejection (exit 4), and with --dead-letter the summary counts the rows committed", async () => {
    const my = db('mariadb');
    const values = Array.from({ length: 24 }, (_, i) => `(${i + 1}, '${i === 12 ? '' : 'a'}')`).join(',');
    await my.exec(`SET SESSION sql_mode = ''; DROP TABLE IF EXISTS e_src; CREATE TABLE e_src (id int PRIMARY KEY, e ENUM('a','b')); INSERT INTO e_src VALUES ${values}; SET SESSION sql_mode = DEFAULT`);
    await my.exec('DROP TABLE IF EXISTS e_dst; CREATE TABLE e_dst LIKE e_src');
    const plain = await bridge(['copy', my.url('e_src'), my.url('e_dst', 'columns=auto')]);
    expect(plain.exitCode).toBe(4);
    expect(plain.stderr).toMatch(/field e is "", not one of the values of enum\('a','b'\)/);
    await my.exec('DELETE FROM e_dst');
    const file = path.join(dir, 'e.ndjson');
    const r = await bridge(['copy', my.url('e_src'), my.url('e_dst', 'columns=auto'), '--dead-letter', `file://${file}`]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/done: 23 rows .* 1 dead-lettered/);
    expect(Number((await my.rows('SELECT COUNT(*) AS n FROM e_dst'))[0]!.n)).toBe(23);
  });

  it('a SQLite DECIMAL(65,30) holding 1e35 renders as its decimal digits, not 1e+35', async () => {
    await db('sqlite').exec('DROP TABLE IF EXISTS d_src; CREATE TABLE d_src (id INTEGER PRIMARY KEY, d DECIMAL(65,30), e DECIMAL(10,2)); INSERT INTO d_src VALUES (1, 1e35, 1.005)');
    const r = await bridge(['copy', db('sqlite').url('d_src'), '-', '-q']);
    expect(parseLines(r.stdout)).toEqual([{ id: 1, d: `100000000000000000000000000000000000.${'0'.repeat(30)}`, e: '1.005' }]);
  });

  it('columns=auto with auto_create_table creates a typed copy of the source table and copies every row', async () => {
    const pg = db('postgres');
    await pg.exec("DROP TABLE IF EXISTS c_src; CREATE TABLE c_src (id bigint PRIMARY KEY, amount numeric(12,2) NOT NULL, at timestamptz, doc jsonb, code varchar(8) UNIQUE); INSERT INTO c_src VALUES (1, 30.00, '2024-01-02 03:04:05.5+00', '{\"a\": 1}', 'x'), (2, -0.5, NULL, NULL, NULL)");
    for (const k of ['postgres', 'mariadb', 'sqlite'] as const) {
      await db(k).exec('DROP TABLE IF EXISTS c_dst');
      const r = await bridge(['copy', pg.url('c_src'), db(k).url('c_dst', 'columns=auto&auto_create_table=true')]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/done: 2 rows/);
      const back = await bridge(['copy', db(k).url('c_dst'), '-', '-q']);
      const rows = parseLines(back.stdout) as Record<string, unknown>[];
      expect(rows.map((x) => [x.id, x.amount, x.code])).toEqual([
        [1, '30.00', 'x'],
        [2, '-0.50', null],
      ]);
    }
    const cols = await db('mariadb').rows("SELECT COLUMN_NAME AS c, COLUMN_TYPE AS t, IS_NULLABLE AS n, COLUMN_KEY AS k FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'c_dst' ORDER BY ORDINAL_POSITION");
    expect(cols).toEqual([
      { c: 'id', t: 'bigint(20)', n: 'NO', k: 'PRI' },
      { c: 'amount', t: 'decimal(12,2)', n: 'NO', k: '' },
      { c: 'at', t: 'datetime(6)', n: 'YES', k: '' },
      { c: 'doc', t: 'longtext', n: 'YES', k: '' },
      { c: 'code', t: 'varchar(8)', n: 'YES', k: 'UNI' },
    ]);
  });

  it('a NDJSON source cannot create a typed table: a config error naming the fix', async () => {
    const file = path.join(dir, 'in.ndjson');
    (await import('node:fs')).writeFileSync(file, '{"a":1}\n');
    const r = await bridge(['copy', `file://${file}`, db('sqlite').url('nd_dst', 'columns=auto&auto_create_table=true')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/auto_create_table with columns=auto creates the table from a database source's columns/);
  });
});

describe('--dry-run flags what would not land exactly, and nothing else', () => {
  const plan = async (from: string, to: string): Promise<string> => {
    const r = await bridge(['copy', from, to, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout;
  };

  it('PostgreSQL into MariaDB: NaN/Infinity, ±infinity dates, BC dates; nothing for varchar(100) → varchar(100)', async () => {
    await db('postgres').exec('DROP TABLE IF EXISTS p_plan; CREATE TABLE p_plan (id int PRIMARY KEY, n numeric, d date, v varchar(100), f float8, j json)');
    await db('mariadb').exec('DROP TABLE IF EXISTS p_plan; CREATE TABLE p_plan (id int PRIMARY KEY, n decimal(65,30), d date, v varchar(100), f double, j json)');
    const out = await plan(db('postgres').url('p_plan'), db('mariadb').url('p_plan', 'columns=auto'));
    expect(out).toMatch(/ n numeric → n decimal\(65,30\)\s+REJECTS: NaN; ±Infinity; numbers with more than 35 integer digits/);
    expect(out).toMatch(/ d date → d date\s+REJECTS: ±infinity; dates before year 1000 or after 9999/);
    expect(out).toMatch(/ v character varying\(100\) → v varchar\(100\)\n/);
    expect(out).toMatch(/ f double precision → f double\s+REJECTS: NaN; ±Infinity; -0/);
    expect(out).toMatch(/ j json → j longtext\n/);
  });

  it('MariaDB into PostgreSQL and SQLite: zero dates, TIME beyond 24 h, YEAR, TINYINT(1), UNSIGNED into SQLite, jsonb normalisation', async () => {
    await db('mariadb').exec('DROP TABLE IF EXISTS m_plan; CREATE TABLE m_plan (id int PRIMARY KEY, d date, t time, y year, b tinyint(1), u bigint unsigned, j json)');
    await db('postgres').exec('DROP TABLE IF EXISTS m_plan; CREATE TABLE m_plan (id int PRIMARY KEY, d date, t time, y smallint, b boolean, u numeric(20,0), j jsonb)');
    const pgOut = await plan(db('mariadb').url('m_plan'), db('postgres').url('m_plan', 'columns=auto'));
    expect(pgOut).toMatch(/ d date → d date \(cast ::date\)\s+REJECTS: zero dates/);
    expect(pgOut).toMatch(/ t time → t time without time zone \(cast ::time\)\s+REJECTS: durations below 00:00:00 or beyond 24:00:00/);
    expect(pgOut).toMatch(/ y year\(4\) → y smallint \(cast ::int2\)\n/);
    expect(pgOut).toMatch(/ b tinyint\(1\) → b boolean \(cast ::bool\)\s+REJECTS: values other than true\/false/);
    expect(pgOut).toMatch(/ u bigint\(20\) unsigned → u numeric\(20,0\) \(cast ::numeric\)\n/);
    expect(pgOut).toMatch(/ j longtext → j jsonb \(cast ::jsonb\)\s+LOSSY: jsonb normalises documents/);
    await db('sqlite').exec('DROP TABLE IF EXISTS m_plan; CREATE TABLE m_plan (id INTEGER PRIMARY KEY, u INTEGER, y INTEGER)');
    const liteOut = await plan(db('mariadb').url('m_plan'), db('sqlite').url('m_plan', 'columns=auto'));
    expect(liteOut).toMatch(/ u bigint\(20\) unsigned → u INTEGER\s+REJECTS: integers outside -2\^63..2\^63-1/);
    expect(liteOut).toMatch(/ y year\(4\) → y INTEGER\n/);
  });

  it('into SQLite: NaN, text into INTEGER; from SQLite: what each column really holds (typeof counts)', async () => {
    await db('postgres').exec('DROP TABLE IF EXISTS s_plan; CREATE TABLE s_plan (id int PRIMARY KEY, f float8, t text)');
    await db('sqlite').exec("DROP TABLE IF EXISTS s_plan; CREATE TABLE s_plan (id INTEGER PRIMARY KEY, f REAL, t INTEGER); INSERT INTO s_plan VALUES (1, 1.5, 'n/a'), (2, 2.5, 3)");
    const into = await plan(db('postgres').url('s_plan'), db('sqlite').url('s_plan', 'columns=auto&key=id'));
    expect(into).toMatch(/ f double precision → f REAL\s+REJECTS: NaN; -0/);
    expect(into).toMatch(/ t text → t INTEGER\s+REJECTS: text values that are not numbers/);
    await db('postgres').exec('DROP TABLE IF EXISTS s_plan2; CREATE TABLE s_plan2 (id int PRIMARY KEY, f float8, t bigint)');
    const from = await plan(db('sqlite').url('s_plan'), db('postgres').url('s_plan2', 'columns=auto'));
    expect(from).toMatch(/ id INTEGER → id integer \(cast ::int4\)\n/);
    expect(from).toMatch(/ f REAL → f double precision \(cast ::float8\)\n/);
    expect(from).toMatch(/ t INTEGER → t bigint \(cast ::int8\)\s+REJECTS: 1 text value \(SQLite does not enforce the declared type\)/);
  });

  it('PostgreSQL int[] into int[] is exact', async () => {
    await db('postgres').exec('DROP TABLE IF EXISTS a_plan; CREATE TABLE a_plan (id int PRIMARY KEY, a int[]); DROP TABLE IF EXISTS a_plan2; CREATE TABLE a_plan2 (id int PRIMARY KEY, a int[])');
    const out = await plan(db('postgres').url('a_plan'), db('postgres').url('a_plan2', 'columns=auto'));
    expect(out).toMatch(/ a integer\[\] → a integer\[\] \(cast ::int4\[\]\)\n/);
  });
});
