import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { MARIADB_URL, mysqlLike, PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * MariaDB/MySQL take no statement longer than max_allowed_packet (16 MB by default). Upserting
 * rows of 32 KB (JSON documents, say) sent 1,024 of them in one INSERT … ON DUPLICATE KEY UPDATE:
 * the server closed the connection, the batch was retried ten times as a network failure and the
 * copy failed (exit 3, 0 of 2,000 rows, 30 s). A single value over the limit did the same to the
 * rows around it. Statements are now cut to fit, and a value that cannot fit is rejected by name.
 */
const dir = tempDir();
let pg: TestDb;
let my: TestDb;
let limit: number;

beforeAll(async () => {
  pg = await postgres();
  my = await mysqlLike('mariadb');
  limit = Number((await my.rows('SELECT @@max_allowed_packet AS n'))[0]!.n);
  await pg.exec('DROP TABLE IF EXISTS pk_docs, pk_huge');
  await pg.exec(`CREATE TABLE pk_docs (id int PRIMARY KEY, doc text); INSERT INTO pk_docs SELECT g, repeat(md5(g::text), 1000) FROM generate_series(1, 2000) g`);
  await pg.exec(`CREATE TABLE pk_huge (id int PRIMARY KEY, note text, doc text); INSERT INTO pk_huge SELECT g, 'n' || g, 'small ' || g FROM generate_series(1, 600) g`);
  await pg.exec(`UPDATE pk_huge SET doc = repeat('x', ${limit} + 1000000) WHERE id = 300`);
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS pk_docs, pk_huge').catch(() => {});
  await my.exec('DROP TABLE IF EXISTS pk_docs, pk_huge, pk_huge_key').catch(() => {});
  await pg.close();
  await my.close();
});

const sums = async (db: TestDb, t: string) => (await db.rows(`SELECT count(*) AS n, sum(length(doc)) AS bytes FROM ${t}`)).map((r) => ({ n: Number(r.n), bytes: Number(r.bytes) }))[0];

describe('statements within max_allowed_packet', () => {
  it('2,000 rows of 32 KB upserted with key= (four times the packet limit in a batch): all land, exit 0', async () => {
    await my.exec('DROP TABLE IF EXISTS pk_docs');
    const r = await bridge(['copy', `${PG_URL}?table=pk_docs`, `${MARIADB_URL}?table=pk_docs&columns=auto&auto_create_table=true&key=id`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/retry/);
    expect(await sums(my, 'pk_docs')).toEqual(await sums(pg, 'pk_docs'));
  }, 60_000);

  it('a value longer than max_allowed_packet, appended (LOAD DATA, which streams it in packets of its own): every row lands, that one exactly', async () => {
    await my.exec('DROP TABLE IF EXISTS pk_huge; CREATE TABLE pk_huge (id int PRIMARY KEY, note varchar(20), doc longtext)');
    const r = await bridge(['copy', `${PG_URL}?table=pk_huge`, `${MARIADB_URL}?table=pk_huge&columns=auto`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const at = async (db: TestDb) => (await db.rows('SELECT length(doc) AS n, md5(doc) AS h FROM pk_huge WHERE id = 300')).map((x) => `${String(x.n)} ${String(x.h)}`);
    expect(await at(my)).toEqual(await at(pg));
    expect(Number((await my.rows('SELECT count(*) AS n FROM pk_huge'))[0]!.n)).toBe(600);
  }, 60_000);

  it('a value longer than max_allowed_packet, upserted (key=, INSERTs): its row is dead-lettered naming the field and the limit, the 599 others land', async () => {
    await my.exec('DROP TABLE IF EXISTS pk_huge_key; CREATE TABLE pk_huge_key (id int PRIMARY KEY, note varchar(20), doc longtext)');
    const dead = path.join(dir, 'pk_huge_key.dead.ndjson');
    const r = await bridge(['copy', `${PG_URL}?table=pk_huge`, `${MARIADB_URL}?table=pk_huge_key&columns=auto&key=id`, '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/retry/);
    expect(Number((await my.rows('SELECT count(*) AS n FROM pk_huge_key'))[0]!.n)).toBe(599);
    const got = parseLines(readFileSync(dead, 'utf8')) as { payload: { id: number }; metadata: Record<string, string> }[];
    expect(got.map((g) => g.payload.id)).toEqual([300]);
    expect(got[0]!.metadata['bridge.error']).toMatch(/field doc is \d[\d,]* bytes in an INSERT: .*max_allowed_packet/);
  }, 60_000);

  it('without a dead-letter endpoint: exit 4, naming the field', async () => {
    await my.exec('DROP TABLE IF EXISTS pk_huge_key; CREATE TABLE pk_huge_key (id int PRIMARY KEY, note varchar(20), doc longtext)');
    const r = await bridge(['copy', `${PG_URL}?table=pk_huge`, `${MARIADB_URL}?table=pk_huge_key&columns=auto&key=id`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/field doc is \d[\d,]* bytes in an INSERT: .*max_allowed_packet/);
  }, 60_000);

  it('the default insert (a payload column): 1,200 messages of 30 KB land, and one longer than the limit is dead-lettered naming payload', async () => {
    const src = path.join(dir, 'big-messages.ndjson');
    const big = 'x'.repeat(30_000);
    const lines = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ i, s: i === 700 ? 'y'.repeat(limit + 1000) : big }));
    writeFileSync(src, lines.join('\n') + '\n');
    await my.exec('DROP TABLE IF EXISTS pk_queue; CREATE TABLE pk_queue (id bigint AUTO_INCREMENT PRIMARY KEY, payload longtext NOT NULL)');
    const dead = path.join(dir, 'pk_queue.dead.ndjson');
    const r = await bridge(['copy', `file://${src}`, `${MARIADB_URL}?table=pk_queue`, '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/retry/);
    expect(Number((await my.rows('SELECT count(*) AS n FROM pk_queue'))[0]!.n)).toBe(1199);
    expect(Number((await my.rows("SELECT count(*) AS n FROM pk_queue WHERE payload LIKE '%\"i\":700,%'"))[0]!.n)).toBe(0);
    const got = parseLines(readFileSync(dead, 'utf8')) as { payload: { i: number }; metadata: Record<string, string> }[];
    expect(got.map((g) => g.payload.i)).toEqual([700]);
    expect(got[0]!.metadata['bridge.error']).toMatch(/field payload is \d[\d,]* bytes in an INSERT: .*max_allowed_packet/);
    await my.exec('DROP TABLE IF EXISTS pk_queue');
  }, 60_000);

  it('insert_query (noticed in stop 45 and left then): 2,000 rows of 32 KB land in multi-row statements cut to fit, and a value over the limit is dead-lettered naming its token', async () => {
    await my.exec('DROP TABLE IF EXISTS pk_tokens; CREATE TABLE pk_tokens (id int PRIMARY KEY, doc longtext)');
    const q = encodeURIComponent('INSERT INTO pk_tokens (id, doc) VALUES (${payload:id}, ${payload:doc})');
    const r = await bridge(['copy', `${PG_URL}?table=pk_docs`, `${MARIADB_URL}?table=pk_tokens&insert_query=${q}`, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/retry/);
    expect(await sums(my, 'pk_tokens')).toEqual(await sums(pg, 'pk_docs'));
    await my.exec('DROP TABLE IF EXISTS pk_tokens; CREATE TABLE pk_tokens (id int PRIMARY KEY, doc longtext)');
    const dead = path.join(dir, 'pk_tokens.dead.ndjson');
    const huge = await bridge(['copy', `${PG_URL}?table=pk_huge`, `${MARIADB_URL}?table=pk_tokens&insert_query=${q}`, '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(huge.exitCode, huge.stderr).toBe(0);
    expect(huge.stderr).not.toMatch(/retry/);
    expect(Number((await my.rows('SELECT count(*) AS n FROM pk_tokens'))[0]!.n)).toBe(599);
    const got = parseLines(readFileSync(dead, 'utf8')) as { payload: { id: number }; metadata: Record<string, string> }[];
    expect(got.map((g) => g.payload.id)).toEqual([300]);
    expect(got[0]!.metadata['bridge.error']).toMatch(/field payload:doc is \d[\d,]* bytes in an INSERT: .*max_allowed_packet/);
    await my.exec('DROP TABLE IF EXISTS pk_tokens');
  }, 90_000);
});
