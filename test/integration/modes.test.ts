import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, spawnBridge, tempDir } from '../helpers/bridge.js';
import { postgres, sqlite, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
let pg: TestDb;
let sq: TestDb;
beforeAll(async () => {
  pg = await postgres();
  sq = sqlite(path.join(dir, 'modes.db'));
});
afterAll(async () => {
  await pg.close();
  await sq.close();
});

describe('select_query (PostgreSQL)', () => {
  beforeAll(async () => {
    await pg.exec('DROP TABLE IF EXISTS t_sel; CREATE TABLE t_sel (id int PRIMARY KEY, body text)');
  });
  const fill = () => pg.exec(`TRUNCATE t_sel; INSERT INTO t_sel SELECT g, 'b' || g FROM generate_series(1, 95) g`);

  it('binds the batch size to $1 and commits a consuming query only after the sink confirmed', async () => {
    await fill();
    const r = await bridge(['copy', `${pg.url('t_sel')}&select_query=DELETE FROM t_sel WHERE id IN (SELECT id FROM t_sel ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING *`, '-', '--batch-size', '10', '-q']);
    expect(r.exitCode).toBe(0);
    expect((parseLines(r.stdout) as { id: number }[]).map((x) => x.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 95 }, (_, i) => i + 1));
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_sel')).toEqual([{ n: 0 }]);
  });

  it('rolls the consuming query back when the sink fails', async () => {
    await fill();
    const r = await bridge(['copy', `${pg.url('t_sel')}&select_query=DELETE FROM t_sel WHERE id IN (SELECT id FROM t_sel ORDER BY id LIMIT $1) RETURNING *`, 'sqlite:///nonexistent-dir/x.db?table=t']);
    expect(r.exitCode).toBe(3);
    expect(await pg.rows('SELECT count(*)::int AS n FROM t_sel')).toEqual([{ n: 95 }]);
  });

  it('with delete_after_read deletes the returned rows by primary key', async () => {
    await fill();
    const r = await bridge(['copy', `${pg.url('t_sel')}&delete_after_read=true&select_query=SELECT id, body FROM t_sel WHERE id <= 50 ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, '-', '--batch-size', '20', '-q']);
    expect(r.exitCode).toBe(0);
    expect(parseLines(r.stdout)).toHaveLength(50);
    expect(await pg.rows('SELECT min(id)::int AS lo, count(*)::int AS n FROM t_sel')).toEqual([{ lo: 51, n: 45 }]);
  });

  it('copy refuses a query that returns the same rows again (it would loop)', async () => {
    await fill();
    const r = await bridge(['copy', `${pg.url('t_sel')}&select_query=SELECT * FROM t_sel ORDER BY id LIMIT $1`, '-', '--batch-size', '10']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('select_query returned the same rows twice');
  });
});

describe('source_metadata and envelopes', () => {
  it('adds bridge.src.* position metadata, visible with format=envelope, and ids are stable across runs', async () => {
    await sq.exec('DROP TABLE IF EXISTS t_meta; CREATE TABLE t_meta (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t_meta (v) VALUES (\'a\'), (\'b\')');
    const run = () => bridge(['copy', sq.url('t_meta', 'cursor_column=id&source_metadata=true'), '-', '--dst-opt', 'format=envelope', '-q']);
    const first = parseLines((await run()).stdout) as { id: string; metadata: Record<string, string>; payload: unknown }[];
    expect(first[1]).toMatchObject({
      metadata: { 'bridge.src.kind': 'sqlite', 'bridge.src.table': 't_meta', 'bridge.src.cursor_column': 'id', 'bridge.src.cursor': '2' },
      payload: { id: 2, v: 'b' },
    });
    expect(first[0]!.id).toMatch(/^[0-9a-f]{32}$/);
    const second = parseLines((await run()).stdout) as { id: string }[];
    expect(second.map((x) => x.id)).toEqual(first.map((x) => x.id));
  });

  it('an envelope file round-trips ids, metadata and payloads', async () => {
    const file = path.join(dir, 'env.ndjson');
    await bridge(['copy', sq.url('t_meta', 'cursor_column=id&source_metadata=true'), `file://${file}?format=envelope`, '-q']);
    const back = await bridge(['copy', `file://${file}?format=envelope`, '-', '--dst-opt', 'format=envelope', '-q']);
    expect(back.exitCode).toBe(0);
    const original = parseLines((await bridge(['copy', `file://${file}`, '-', '-q'])).stdout);
    expect(parseLines(back.stdout)).toEqual(original);
  });
});

describe('polling backoff (max_polling_interval_ms)', () => {
  /** Index scans of a table: one per poll of a cursor reader on a drained table. */
  async function scans(table: string): Promise<number> {
    await pg.exec('SELECT pg_stat_clear_snapshot()');
    const r = await pg.rows(`SELECT coalesce(idx_scan, 0) + coalesce(seq_scan, 0) AS n FROM pg_stat_user_tables WHERE relname = '${table}'`);
    return Number(r[0]!.n);
  }

  it('a drained tail backs off from polling_interval_ms up to max_polling_interval_ms', async () => {
    await pg.exec('DROP TABLE IF EXISTS t_poll_a; CREATE TABLE t_poll_a (id int PRIMARY KEY); DROP TABLE IF EXISTS t_poll_b; CREATE TABLE t_poll_b (id int PRIMARY KEY)');
    const a = spawnBridge(['tail', pg.url('t_poll_a', 'cursor_column=id&polling_interval_ms=20'), 'file:///dev/null', '--progress', 'none']);
    const b = spawnBridge(['tail', pg.url('t_poll_b', 'cursor_column=id&polling_interval_ms=20&max_polling_interval_ms=800'), 'file:///dev/null', '--progress', 'none']);
    await new Promise((r) => setTimeout(r, 3000));
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    await Promise.all([a, b]);
    await new Promise((r) => setTimeout(r, 1200)); // backends flush their statistics at least every second
    const constant = await scans('t_poll_a');
    const backedOff = await scans('t_poll_b');
    expect(constant).toBeGreaterThan(50);
    expect(backedOff).toBeLessThan(15);
  });
});
