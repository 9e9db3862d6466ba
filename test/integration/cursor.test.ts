import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { allKinds, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
let dbs: TestDb[];
beforeAll(async () => {
  dbs = await allKinds(path.join(dir, 'cursor.db'));
});
afterAll(async () => {
  for (const db of dbs) await db.close();
});

const serial = (kind: TestDb['kind']): string =>
  kind === 'postgres' ? 'id bigserial PRIMARY KEY' : kind === 'sqlite' ? 'id INTEGER PRIMARY KEY AUTOINCREMENT' : 'id bigint AUTO_INCREMENT PRIMARY KEY';

for (const kind of ['postgres', 'mysql', 'mariadb', 'sqlite'] as const) {
  describe(`${kind}: cursor paging`, () => {
    const table = `t_ties_${kind}`;
    const db = (): TestDb => dbs.find((d) => d.kind === kind)!;

    beforeAll(async () => {
      await db().exec(`DROP TABLE IF EXISTS ${table}`);
      await db().exec(`DROP TABLE IF EXISTS bridge_cursors_${table}`);
      await db().exec(`CREATE TABLE ${table} (${serial(kind)}, c int NOT NULL, label varchar(20))`);
      // 3 distinct values, a run of 10 equal values across the 4-row page boundary, then 3 more.
      const values = [1, 2, 3, ...Array(10).fill(5), 6, 7, 8];
      await db().exec(`INSERT INTO ${table} (c, label) VALUES ${values.map((v, i) => `(${v}, 'r${i}')`).join(', ')}`);
    });

    it('a run of equal cursor values straddling a page boundary is delivered exactly once', async () => {
      const r = await bridge(['copy', db().url(table), '-', '--cursor-column', 'c', '--batch-size', '4', '-q']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const rows = parseLines(r.stdout) as { id: number; c: number }[];
      expect(rows.map((x) => x.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      expect(rows.map((x) => x.c)).toEqual([...rows.map((x) => x.c)].sort((a, b) => a - b));
    });

    it('cursor_id persists the position in bridge_cursors_<table>; a re-run copies only new rows', async () => {
      const first = await bridge(['copy', db().url(table, 'cursor_id=job1'), '-', '--cursor-column', 'c', '--batch-size', '4', '-q']);
      expect(first.exitCode).toBe(0);
      expect(parseLines(first.stdout)).toHaveLength(16);
      const stored = await db().rows(`SELECT cursor_id, last_value FROM bridge_cursors_${table}`);
      expect(stored).toHaveLength(1);
      const env = JSON.parse(String(stored[0]!.last_value)) as Record<string, unknown>;
      expect(env).toMatchObject({ bridge_checkpoint: 1, source: `${kind}:${table}:c`, value: 'int:8' });
      expect(typeof env.updated_at_ms).toBe('number');

      const again = await bridge(['copy', db().url(table, 'cursor_id=job1'), '-', '--cursor-column', 'c', '-q']);
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toBe('');

      await db().exec(`INSERT INTO ${table} (c, label) VALUES (9, 'new1'), (9, 'new2')`);
      const more = await bridge(['copy', db().url(table, 'cursor_id=job1'), '-', '--cursor-column', 'c', '-q']);
      expect((parseLines(more.stdout) as { label: string }[]).map((x) => x.label)).toEqual(['new1', 'new2']);
    });

    it('a checkpoint written for another source is refused', async () => {
      const r = await bridge(['copy', db().url(table, 'cursor_id=job1'), '-', '--cursor-column', 'id']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`was written for ${kind}:${table}:c, not ${kind}:${table}:id`);
    });

    it('checkpoint_store=file:// keeps the envelope in a local JSON file', async () => {
      const file = path.join(dir, `${kind}-cursors.json`);
      const r = await bridge(['copy', db().url(table, `cursor_id=f1&checkpoint_store=file://${file}`), '-', '--cursor-column', 'id', '-q']);
      expect(r.exitCode).toBe(0);
      const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { source: string; value: string }>;
      expect(all.f1).toMatchObject({ bridge_checkpoint: 1, source: `${kind}:${table}:id`, value: 'int:18' });
    });
  });
}
