import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, spawnBridge, tempDir } from '../helpers/bridge.js';
import { KINDS, type ConformanceDb } from './kinds.js';

/** Every read mode on every kind: snapshot, cursor paging (ties, resume), queue reads, select_query. */
const dir = tempDir();
const N = 3000;
const fixture = path.join(dir, 'fixtures.ndjson');
writeFileSync(fixture, Array.from({ length: N }, (_, i) => JSON.stringify({ n: i, note: `message ${i}` })).join('\n') + '\n');

for (const k of KINDS) {
  describe.skipIf(k.skip !== undefined)(`${k.kind}: read modes${k.skip ? ` (${k.skip})` : ''}`, () => {
    let db: ConformanceDb;
    beforeAll(async () => {
      db = await k.open(dir);
    });
    afterAll(async () => db?.close());

    describe('cursor paging', () => {
      const table = `t_ties_${k.kind}`;
      beforeAll(async () => {
        await db.dropTable(table);
        await db.dropTable(`bridge_cursors_${table}`);
        await db.exec(`CREATE TABLE ${table} (${db.serialPk}, c int NOT NULL, label varchar(20))`);
        // 3 distinct values, a run of 10 equal values across the 4-row page boundary, then 3 more.
        const values = [1, 2, 3, ...Array(10).fill(5), 6, 7, 8];
        await db.exec(`INSERT INTO ${table} (c, label) VALUES ${values.map((v, i) => `(${v}, 'r${i}')`).join(', ')}`);
      });

      it('a run of equal cursor values straddling a page boundary is delivered exactly once', async () => {
        const r = await bridge(['copy', db.url(table), '-', '--cursor-column', 'c', '--batch-size', '4', '-q']);
        expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
        const rows = parseLines(r.stdout) as { id: number; c: number }[];
        expect(rows.map((x) => x.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
        expect(rows.map((x) => x.c)).toEqual([...rows.map((x) => x.c)].sort((a, b) => a - b));
      });

      it('cursor_id persists the position in bridge_cursors_<table>; a re-run copies only new rows', async () => {
        const first = await bridge(['copy', db.url(table, 'cursor_id=job1'), '-', '--cursor-column', 'c', '--batch-size', '4', '-q']);
        expect(first.exitCode).toBe(0);
        expect(parseLines(first.stdout)).toHaveLength(16);
        const stored = await db.rows(`SELECT cursor_id, last_value FROM bridge_cursors_${table}`);
        expect(stored).toHaveLength(1);
        const env = JSON.parse(String(stored[0]!.last_value)) as Record<string, unknown>;
        expect(env).toMatchObject({ bridge_checkpoint: 1, source: `${k.kind}:${table}:c`, value: 'int:8' });
        expect(typeof env.updated_at_ms).toBe('number');
        const again = await bridge(['copy', db.url(table, 'cursor_id=job1'), '-', '--cursor-column', 'c', '-q']);
        expect({ code: again.exitCode, out: again.stdout }).toEqual({ code: 0, out: '' });
        await db.exec(`INSERT INTO ${table} (c, label) VALUES (9, 'new1'), (9, 'new2')`);
        const more = await bridge(['copy', db.url(table, 'cursor_id=job1'), '-', '--cursor-column', 'c', '-q']);
        expect((parseLines(more.stdout) as { label: string }[]).map((x) => x.label)).toEqual(['new1', 'new2']);
      });

      it('a checkpoint written for another source is refused', async () => {
        const r = await bridge(['copy', db.url(table, 'cursor_id=job1'), '-', '--cursor-column', 'id']);
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain(`was written for ${k.kind}:${table}:c, not ${k.kind}:${table}:id`);
      });

      it('checkpoint_store=file:// keeps the envelope in a local JSON file', async () => {
        const file = path.join(dir, `${k.kind}-cursors.json`);
        const r = await bridge(['copy', db.url(table, `cursor_id=f1&checkpoint_store=file://${file}`), '-', '--cursor-column', 'id', '-q']);
        expect(r.exitCode).toBe(0);
        const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { source: string; value: string }>;
        expect(all.f1).toMatchObject({ bridge_checkpoint: 1, source: `${k.kind}:${table}:id`, value: 'int:18' });
      });
    });

    describe('snapshot and select_query', () => {
      const table = `t_snap_${k.kind}`;
      beforeAll(async () => {
        await db.dropTable(table);
        await db.exec(`CREATE TABLE ${table} (k int PRIMARY KEY, body varchar(20))`);
        await db.exec(`INSERT INTO ${table} (k, body) VALUES ${Array.from({ length: 250 }, (_, i) => `(${249 - i}, 'b${249 - i}')`).join(', ')}`);
      });

      it('a snapshot pages by the primary key: every row once, in key order, the table unchanged', async () => {
        const r = await bridge(['copy', db.url(table), '-', '--batch-size', '32', '-q']);
        expect(r.exitCode).toBe(0);
        expect(parseLines(r.stdout)).toEqual(Array.from({ length: 250 }, (_, i) => ({ k: i, body: `b${i}` })));
        expect(await db.count(table)).toBe(250);
      });

      it.runIf(k.has('select_query'))('select_query runs with the batch size bound', async () => {
        const p = k.kind === 'sqlserver' ? '@p1' : '$1';
        const q = k.kind === 'sqlserver' ? `SELECT TOP (${p}) k FROM ${table} WHERE k < 3 ORDER BY k` : `SELECT k FROM ${table} WHERE k < 3 ORDER BY k LIMIT ${p}`;
        const r = await bridge(['copy', db.url(table, `select_query=${encodeURIComponent(q)}`), '-', '--batch-size', '2', '--limit', '2', '-q']);
        expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
        expect(parseLines(r.stdout)).toEqual([{ k: 0 }, { k: 1 }]);
      });

      it.runIf(!k.has('select_query'))('select_query is refused with the reason (exit 2)', async () => {
        const r = await bridge(['copy', db.url(table, 'select_query=SELECT%201'), '-']);
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toMatch(/select_query is not supported on/);
      });
    });

    describe('queue reads', () => {
      const table = `t_queue_${k.kind}`;

      it('auto_create_table makes the queue shape; reading it gives the payloads back byte for byte', async () => {
        await db.dropTable(table);
        const r = await bridge(['copy', `file://${fixture}`, db.url(table, 'auto_create_table=true'), '-q', '--batch-size', '500']);
        expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
        expect(await db.count(table)).toBe(N);
        const back = await bridge(['copy', db.url(table), '-', '-q']);
        expect(back.stdout + '\n').toBe(readFileSync(fixture, 'utf8'));
      });

      it('two processes draining one queue with delete_after_read deliver each row once', async () => {
        const outs = [path.join(dir, `${k.kind}-a.ndjson`), path.join(dir, `${k.kind}-b.ndjson`)];
        const results = await Promise.all(outs.map((o) => spawnBridge(['copy', db.url(table, 'delete_after_read=true'), `file://${o}`, '--batch-size', '50', '--progress', 'none'])));
        for (const r of results) expect(r.exitCode).toBe(0);
        const got = outs.flatMap((o) => (parseLines(readFileSync(o, 'utf8')) as { n: number }[]).map((x) => x.n));
        expect(got.length).toBe(N);
        expect(new Set(got).size).toBe(N);
        expect(await db.count(table)).toBe(0);
      });

      it('delete_after_read on an ordinary table deletes rows once the sink confirmed them', async () => {
        const t = `t_outbox_${k.kind}`;
        await db.dropTable(t);
        await db.exec(`CREATE TABLE ${t} (k int PRIMARY KEY, body varchar(20))`);
        await db.exec(`INSERT INTO ${t} (k, body) VALUES ${Array.from({ length: 120 }, (_, i) => `(${i}, 'b${i}')`).join(', ')}`);
        const r = await bridge(['copy', db.url(t, 'delete_after_read=true'), '-', '--batch-size', '25', '-q']);
        expect(r.exitCode).toBe(0);
        expect((parseLines(r.stdout) as { k: number }[]).map((x) => x.k)).toEqual(Array.from({ length: 120 }, (_, i) => i));
        expect(await db.count(t)).toBe(0);
      });

      it('a sink that fails leaves the rows in the queue (nothing deleted before delivery)', async () => {
        const t = `t_keep_${k.kind}`;
        await db.dropTable(t);
        await bridge(['copy', `file://${fixture}`, db.url(t, 'auto_create_table=true'), '-q', '--limit', '100']);
        const r = await bridge(['copy', db.url(t, 'delete_after_read=true'), `file://${tempDir()}/no/such/dir/out.ndjson`]);
        expect(r.exitCode).toBe(2);
        expect(await db.count(t)).toBe(100);
      });
    });
  });
}
