import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 26: a dry run of a route that has never run. Before, `--dry-run` with cursor_id crashed
 * ("Cannot read properties of undefined (reading 'frontier')", exit 1) when the checkpoint table did
 * not exist yet, a route file of such a route exited 1, a `${USER:-root}` user was taken for a
 * written-out password, and a dry run with create_publication=true said to set it.
 */
const dir = tempDir();
let dbs: TestDb[];
beforeAll(async () => {
  dbs = [await postgres(), await mysqlLike('mariadb'), sqlite(path.join(dir, 'first.db'))];
  for (const db of dbs) {
    await db.exec('DROP TABLE IF EXISTS t_first_run');
    await db.exec('DROP TABLE IF EXISTS bridge_cursors_t_first_run');
    await db.exec('CREATE TABLE t_first_run (id int PRIMARY KEY, v text)');
    await db.exec("INSERT INTO t_first_run VALUES (1, 'a'), (2, 'b')");
  }
});
afterAll(async () => {
  for (const db of dbs) await db.close();
});

describe('a dry run before the first run', () => {
  for (const kind of ['postgres', 'mariadb', 'sqlite'])
    it(`${kind}: --dry-run with cursor_id and no checkpoint table yet plans, creates nothing and exits 0`, async () => {
      const db = dbs.find((d) => d.kind === kind)!;
      const r = await bridge(['copy', db.url('t_first_run', 'cursor_id=first'), `file://${path.join(dir, 'never.ndjson')}`, '--cursor-column', 'id', '--dry-run']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/checkpoint holds: nothing readable yet .*the first run creates the checkpoint table/);
      expect(r.stderr).not.toMatch(/this is a bug/);
      const tables = kind === 'sqlite' ? await db.rows("SELECT name FROM sqlite_master WHERE name = 'bridge_cursors_t_first_run'") : kind === 'postgres' ? await db.rows("SELECT 1 FROM pg_tables WHERE tablename = 'bridge_cursors_t_first_run'") : await db.rows("SHOW TABLES LIKE 'bridge_cursors_t_first_run'");
      expect(tables).toEqual([]);
    });

  it('bridge run routes.yaml --dry-run of a new route exits 0; ${MY_USER:-root} is no password; one route is "1 route"', async () => {
    const file = path.join(dir, 'routes.yaml');
    writeFileSync(
      file,
      `connections:\n  maria: mariadb://\${MY_USER:-root}@127.0.0.1:3306/test\nroutes:\n  nightly:\n    source: maria?table=t_first_run&cursor_id=nightly&cursor_column=id\n    sink: file://${path.join(dir, 'nightly.ndjson')}\n`,
    );
    const r = await bridge(['run', file, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/password/);
    expect(r.stderr).toMatch(/: 1 route: /);
    writeFileSync(file, `connections:\n  maria: mariadb://root:hunter2@127.0.0.1:3306/test\nroutes:\n  nightly:\n    source: maria?table=t_first_run\n    sink: file://${path.join(dir, 'n.ndjson')}\n`);
    const written = await bridge(['run', file, '--dry-run']);
    expect(written.stderr).toMatch(/connections.maria holds a password in the file/);
    expect(written.stderr + written.stdout).not.toMatch(/hunter2/);
  });

  it('postgres: --dry-run with create_publication=true plans the publication it would create and exits 0', async () => {
    const db = dbs.find((d) => d.kind === 'postgres')!;
    await db.exec('DROP PUBLICATION IF EXISTS pub_first_run');
    const r = await bridge(['tail', db.url('t_first_run', 'publication=pub_first_run&create_publication=true&slot_name=slot_first_run'), `file://${path.join(dir, 'cdc.ndjson')}`, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/publication: pub_first_run: created at start/);
    expect(await db.rows("SELECT 1 FROM pg_publication WHERE pubname = 'pub_first_run'")).toEqual([]);
    expect(await db.rows("SELECT 1 FROM pg_replication_slots WHERE slot_name = 'slot_first_run'")).toEqual([]);
  });
});
