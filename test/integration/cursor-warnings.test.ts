import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { allKinds, postgres, type TestDb } from '../helpers/databases.js';

/**
 * What cursor paging cannot follow, said at the start. A cursor column that allows NULL: rows where it is NULL have no place in the order cursor
 * paging reads by. A copy by `updated_at` said "done: 2 rows" of a 3-row table, and said nothing
 * of the third. Now it says how many such rows there are and that no run reads them.
 */
const dir = tempDir();
let dbs: TestDb[];
beforeAll(async () => {
  dbs = await allKinds(path.join(dir, 'nulls.db'));
});
afterAll(async () => {
  for (const d of dbs) await d.close();
});

describe('rows whose cursor value is NULL', () => {
  it('copy, tail and the dry run say how many there are and that no run reads them', async () => {
    for (const d of dbs) {
      const ts = d.kind === 'postgres' ? 'timestamptz' : d.kind === 'sqlite' ? 'TEXT' : 'datetime(6)';
      await d.exec('DROP TABLE IF EXISTS cn');
      await d.exec(`CREATE TABLE cn (id int PRIMARY KEY, upd ${ts} NULL)`);
      await d.exec("INSERT INTO cn VALUES (1, '2026-01-01 00:00:00'), (2, NULL), (3, '2026-01-02 00:00:00'), (4, NULL)");
      for (const args of [['copy'], ['tail', '--exit-when-drained'], ['copy', '--dry-run']]) {
        const r = await bridge([args[0]!, d.url('cn'), '-', '--cursor-column', 'upd', ...args.slice(1)]);
        expect(r.exitCode, `${d.kind} ${args.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stderr, `${d.kind} ${args.join(' ')}`).toMatch(/warning: 2 rows of cn have cursor_column upd NULL: cursor paging never reads them/);
        if (!args.includes('--dry-run')) expect(r.stdout.trim().split('\n')).toHaveLength(2);
      }
      await d.exec('DROP TABLE IF EXISTS cn');
      await d.exec(`CREATE TABLE cn (id int PRIMARY KEY, upd ${ts} NOT NULL)`);
      await d.exec("INSERT INTO cn VALUES (1, '2026-01-01 00:00:00')");
      const quiet = await bridge(['copy', d.url('cn'), '-', '--cursor-column', 'upd']);
      expect(quiet.stderr).not.toMatch(/NULL/);
    }
  });

  it('a tail by a uuid column of random UUIDs (version 4) says rows added below its position are never read; UUIDv7 says nothing', async () => {
    const pg = await postgres();
    try {
      await pg.exec('DROP TABLE IF EXISTS cw_uuid, bridge_cursors_cw_uuid; CREATE TABLE cw_uuid (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), v int); INSERT INTO cw_uuid (v) SELECT g FROM generate_series(1, 5) g');
      // A cron tail: it keeps its position for the next run.
      const tail = await bridge(['tail', pg.url('cw_uuid', 'cursor_id=cw'), '-', '--cursor-column', 'id', '--exit-when-drained']);
      expect(tail.exitCode, tail.stderr).toBe(0);
      expect(tail.stderr).toMatch(/warning: cursor_column id of cw_uuid holds UUIDs of version 4, which do not increase: a row added later whose id sorts below the position is never read/);
      // Read once (a copy without cursor_id): every row is read whatever the order, nothing to say.
      expect((await bridge(['copy', pg.url('cw_uuid'), '-', '--cursor-column', 'id'])).stderr).not.toMatch(/UUIDs of version/);
      await pg.exec("DELETE FROM cw_uuid; INSERT INTO cw_uuid VALUES ('0190a6b2-1c3d-7e4f-8a5b-6c7d8e9f0a1b', 1), ('0190a6b2-1c3e-7e4f-8a5b-6c7d8e9f0a1b', 2)");
      expect((await bridge(['tail', pg.url('cw_uuid', 'cursor_id=cw7'), '-', '--cursor-column', 'id', '--exit-when-drained'])).stderr).not.toMatch(/UUIDs of version/);
      await pg.exec('DROP TABLE cw_uuid, bridge_cursors_cw_uuid');
    } finally {
      await pg.close();
    }
  });
});
