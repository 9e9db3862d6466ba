import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, lines, spawnBridge, tempDir } from '../helpers/bridge.js';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { openDatabase } from '../../src/connectors/sql/open-database.js';
import { loadKind } from '../../src/connectors/sql/kind.js';
import { mysqlLike, type TestDb } from '../helpers/databases.js';

/**
 * Cursor paging on MariaDB/MySQL moves its saved position only after a fresh list of open
 * transactions (information_schema.INNODB_TRX). The server refreshes that list only when nobody read
 * it for 100 ms, so two listers reading it in turn kept it stale for good: neither tail ever saved a
 * position, and every restart delivered the whole table again.
 */
const N = 5_000;
const dir = tempDir('listing-');
let db: TestDb;

beforeAll(async () => {
  db = await mysqlLike('mariadb');
});
afterAll(async () => {
  await db.close();
});

async function table(name: string): Promise<void> {
  await db.exec(`DROP TABLE IF EXISTS ${name}`);
  await db.exec(`DROP TABLE IF EXISTS bridge_cursors_${name}`);
  await db.exec(`CREATE TABLE ${name} (id bigint PRIMARY KEY, v varchar(20))`);
  for (let i = 0; i < N; i += 1000) await db.exec(`INSERT INTO ${name} VALUES ${Array.from({ length: 1000 }, (_, k) => `(${i + k + 1}, 'v${i + k + 1}')`).join(',')}`);
}

/** The saved position's id (0: none). */
async function saved(name: string, id: string): Promise<number> {
  const r = await db.rows(`SELECT last_value FROM bridge_cursors_${name} WHERE cursor_id = '${id}'`).catch(() => []);
  return r[0] ? Number((JSON.parse(String(r[0].last_value)) as { value: string }).value.replace(/^int:/, '')) : 0;
}

let last = (): number => N;

/** Inserts a row into each table every 10 ms until stopped (the tails always have rows to wait for). */
function writer(tables: string[]): () => Promise<void> {
  let on = true;
  let id = N;
  last = () => id;
  const done = (async () => {
    while (on) {
      id++;
      for (const t of tables) await db.exec(`INSERT INTO ${t} VALUES (${id}, 'w${id}')`);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return async () => {
    on = false;
    await done;
  };
}

/** Waits until `check` holds, or gives up after `ms`: what it saw last. */
async function within<T>(ms: number, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const count = (file: string): number => (existsSync(file) ? lines(readFileSync(file, 'utf8')).length : 0);

describe('MariaDB cursor tails that list open transactions at the same time', () => {
  it('two tables tailed by one process each save their position past the backlog while rows keep coming', async () => {
    await table('lq_a');
    await table('lq_b');
    const sink = `sqlite://${path.join(dir, 'pair.db')}?columns=auto&auto_create_table=true`;
    const stop = writer(['lq_a', 'lq_b']);
    const p = spawnBridge(['tail', db.url('lq_a,lq_b', 'cursor_column=id&cursor_id=pair'), sink, '--batch-size', '200', '--progress', 'none']);
    try {
      const positions = () => Promise.all([saved('lq_a', 'pair.lq_a'), saved('lq_b', 'pair.lq_b')]);
      expect(Math.min(...(await within(10_000, positions, (v) => v.every((x) => x >= N))))).toBeGreaterThanOrEqual(N);
      await stop();
      // Once writes stop, the positions reach the last row while the tail runs.
      expect(await within(10_000, positions, (v) => v.every((x) => x === last()))).toEqual([last(), last()]);
    } finally {
      await stop();
      p.kill('SIGTERM');
      await p.catch(() => undefined);
    }
    const again = await bridge(['tail', db.url('lq_a,lq_b', 'cursor_column=id&cursor_id=pair'), sink, '--exit-when-drained', '--progress', 'none']);
    expect(again.stderr).toMatch(/\[lq_a\]: done: 0 rows/);
    expect(again.stderr).toMatch(/\[lq_b\]: done: 0 rows/);
  });

  it('two tail processes at once each save their position past the backlog while rows keep coming', async () => {
    await table('lq_c');
    await table('lq_d');
    const stop = writer(['lq_c', 'lq_d']);
    const runs = ['lq_c', 'lq_d'].map((t) => spawnBridge(['tail', db.url(t, 'cursor_column=id&cursor_id=solo'), `file://${path.join(dir, `${t}.ndjson`)}`, '--batch-size', '200', '--progress', 'none']));
    try {
      const positions = () => Promise.all([saved('lq_c', 'solo'), saved('lq_d', 'solo')]);
      expect(Math.min(...(await within(10_000, positions, (v) => v.every((x) => x >= N))))).toBeGreaterThanOrEqual(N);
    } finally {
      await stop();
      for (const p of runs) p.kill('SIGTERM');
      for (const p of runs) await p.catch(() => undefined);
    }
    for (const t of ['lq_c', 'lq_d']) expect(count(path.join(dir, `${t}.ndjson`))).toBeGreaterThanOrEqual(N);
  });

  it('a login without PROCESS is warned once, with the grant, and the tail still delivers and saves its position', async () => {
    await table('lq_e');
    await db.exec(`DROP USER IF EXISTS 'bridge_np'@'%'`);
    await db.exec(`CREATE USER 'bridge_np'@'%'`);
    await db.exec(`GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON test.* TO 'bridge_np'@'%'`);
    try {
      const url = db.url('lq_e', 'cursor_column=id&cursor_id=np').replace('//root@', '//bridge_np@');
      const r = await bridge(['tail', url, `file://${path.join(dir, 'lq_e.ndjson')}`, '--exit-when-drained', '--progress', 'none']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr.match(/cannot wait for rows committed out of order: it cannot read information_schema\.INNODB_TRX \(.*PROCESS.*\): GRANT PROCESS ON \*\.\* TO <user>/g)).toHaveLength(1);
      expect(count(path.join(dir, 'lq_e.ndjson'))).toBe(N);
      expect(await saved('lq_e', 'np')).toBe(N);
    } finally {
      await db.exec(`DROP USER IF EXISTS 'bridge_np'@'%'`);
    }
  });

  it('readers of one pool share a listing started after both their reads; one started before a read is not used for it', async () => {
    const ep = resolveEndpoint(db.url('lq_a'), 'consumer', specForScheme);
    const { db: pool, release } = await openDatabase(ep, await loadKind(ep.kind), () => {});
    try {
      const w = pool.transactions;
      const readA = w.mark();
      const readB = w.mark();
      const [a, b] = await Promise.all([w.since(readA, false), w.since(readB, false)]);
      expect(a?.open).toBeInstanceOf(Set);
      expect(b).toBe(a);
      // A read that ends after that listing started needs a newer one (none is taken within 120 ms of the last).
      expect(await w.since(w.mark(), false)).toBeUndefined();
      await new Promise((r) => setTimeout(r, 150));
      const later = await w.since(w.mark(), false);
      expect(later?.open).toBeInstanceOf(Set);
      expect(later).not.toBe(a);
    } finally {
      await release();
    }
  });
});
