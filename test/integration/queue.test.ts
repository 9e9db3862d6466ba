import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, spawnBridge, tempDir } from '../helpers/bridge.js';
import { allKinds, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
let dbs: TestDb[];
beforeAll(async () => {
  dbs = await allKinds(path.join(dir, 'queue.db'));
});
afterAll(async () => {
  for (const db of dbs) await db.close();
});

const N = 3000;
const fixture = path.join(dir, 'fixtures.ndjson');
writeFileSync(fixture, Array.from({ length: N }, (_, i) => JSON.stringify({ n: i, note: `message ${i}` })).join('\n') + '\n');

for (const kind of ['postgres', 'mysql', 'mariadb', 'sqlite'] as const) {
  describe(`${kind}: queue tables`, () => {
    const db = (): TestDb => dbs.find((d) => d.kind === kind)!;
    const table = `t_queue_${kind}`;

    it('auto_create_table makes the queue shape and the default insert writes whole payloads', async () => {
      await db().exec(`DROP TABLE IF EXISTS ${table}`);
      const r = await bridge(['copy', `file://${fixture}`, db().url(table, 'auto_create_table=true'), '-q', '--batch-size', '500']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const cols = (await db().rows(kind === 'postgres' ? `SELECT column_name AS c FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position` : kind === 'sqlite' ? `SELECT name AS c FROM pragma_table_info('${table}')` : `SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${table}' ORDER BY ORDINAL_POSITION`)).map((x) => x.c);
      expect(cols).toEqual(['id', 'payload', 'locked_until', 'created_at']);
      const count = await db().rows(`SELECT COUNT(*) AS n FROM ${table}`);
      expect(Number(count[0]!.n)).toBe(N);
      // Reading the queue without delete gives back the payloads byte for byte.
      const back = await bridge(['copy', db().url(table), '-', '-q']);
      expect(back.stdout + '\n').toBe(readFileSync(fixture, 'utf8'));
    });

    it('two processes draining one queue with delete_after_read deliver each row once', async () => {
      const outs = [path.join(dir, `${kind}-a.ndjson`), path.join(dir, `${kind}-b.ndjson`)];
      const procs = outs.map((o) => spawnBridge(['copy', db().url(table, 'delete_after_read=true'), `file://${o}`, '--batch-size', '50', '--progress', 'none']));
      const results = await Promise.all(procs);
      for (const r of results) expect(r.exitCode).toBe(0);
      const got = outs.flatMap((o) => (parseLines(readFileSync(o, 'utf8')) as { n: number }[]).map((x) => x.n));
      expect(got.length).toBe(N);
      expect(new Set(got).size).toBe(N);
      const left = await db().rows(`SELECT COUNT(*) AS n FROM ${table}`);
      expect(Number(left[0]!.n)).toBe(0);
    });

    it('delete_after_read on an ordinary table deletes rows once the sink confirmed them', async () => {
      const t = `t_outbox_${kind}`;
      await db().exec(`DROP TABLE IF EXISTS ${t}`);
      await db().exec(`CREATE TABLE ${t} (k int PRIMARY KEY, body varchar(20))`);
      await db().exec(`INSERT INTO ${t} VALUES ${Array.from({ length: 120 }, (_, i) => `(${i}, 'b${i}')`).join(', ')}`);
      const r = await bridge(['copy', db().url(t, 'delete_after_read=true'), '-', '--batch-size', '25', '-q']);
      expect(r.exitCode).toBe(0);
      expect((parseLines(r.stdout) as { k: number }[]).map((x) => x.k)).toEqual(Array.from({ length: 120 }, (_, i) => i));
      expect(Number((await db().rows(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n)).toBe(0);
    });

    it('a sink that fails leaves the rows in the queue (nothing deleted before delivery)', async () => {
      const t = `t_keep_${kind}`;
      await db().exec(`DROP TABLE IF EXISTS ${t}`);
      await bridge(['copy', `file://${fixture}`, db().url(t, 'auto_create_table=true'), '-q', '--limit', '100']);
      // The sink table exists without a payload column: every write is refused.
      const sinkDir = tempDir();
      const r = await bridge(['copy', db().url(t, 'delete_after_read=true'), `file://${sinkDir}/no/such/dir/out.ndjson`]);
      expect(r.exitCode).toBe(2);
      expect(Number((await db().rows(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n)).toBe(100);
    });
  });
}
