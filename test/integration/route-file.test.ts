import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, started, tempDir, waitFor } from '../helpers/bridge.js';
import { allKinds, MARIADB_URL, PG_URL, type TestDb } from '../helpers/databases.js';

/**
 * `bridge run routes.yaml`: three routes (a copy, a table list, a tail) from connections whose
 * password comes from the environment (${VAR}, --env-file). The secret never shows: not in the
 * output, the errors, the JSON progress lines, the dry run's plans, nor the process list.
 */
const SECRET = 'Sx9-route-file-SECRET-4471';
const PG_WITH_SECRET = PG_URL.replace('postgres://postgres@', 'postgres://postgres:${RF_PG_PASSWORD}@');

describe('route files', () => {
  const dir = tempDir();
  const lite = path.join(dir, 'rf.db');
  let dbs: TestDb[];
  const db = (k: TestDb['kind']): TestDb => dbs.find((d) => d.kind === k)!;
  const file = (name: string, text: string): string => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const routes = (extra = ''): string =>
    file(
      'routes.yaml',
      `# three routes, one process
connections:
  pg: ${PG_WITH_SECRET}
  lite: sqlite://${lite}
  maria: ${MARIADB_URL}
routes:
  orders:
    source: pg?table=rf_orders
    sink: lite?table=orders&columns=auto&auto_create_table=true
  lists:
    source: pg?table=rf_list_a,rf_list_b
    sink:
      connection: lite
      columns: auto
      auto_create_table: true
  follow:
    mode: tail
    source:
      connection: pg
      table: rf_orders
      cursor_column: id
      cursor_id: rf-follow
    sink: maria?table=rf_follow&columns=auto&auto_create_table=true
    exit_when_drained: \${RF_DRAIN:-true}
${extra}`,
    );

  beforeAll(async () => {
    dbs = await allKinds(path.join(dir, 'unused.db'));
    await db('postgres').exec(`DROP TABLE IF EXISTS rf_orders, rf_list_a, rf_list_b, bridge_cursors_rf_orders;
      CREATE TABLE rf_orders (id int PRIMARY KEY, item text, amount numeric(10,2));
      INSERT INTO rf_orders SELECT g, 'item ' || g, g * 1.25 FROM generate_series(1, 300) g;
      CREATE TABLE rf_list_a (k text PRIMARY KEY, v int); INSERT INTO rf_list_a VALUES ('a', 1), ('b', 2);
      CREATE TABLE rf_list_b (id bigint PRIMARY KEY, doc jsonb); INSERT INTO rf_list_b VALUES (1, '{"x":[1,2]}')`);
    await db('mariadb').exec('DROP TABLE IF EXISTS rf_follow');
  }, 60_000);
  afterAll(async () => {
    for (const d of dbs) await d.close();
  });

  it('runs three routes with the password from --env-file; the secret shows nowhere, in the process list neither', async () => {
    const env = file('.env', `RF_PG_PASSWORD=${SECRET}\n`);
    const p = spawnBridge(['run', routes(), '--env-file', env, '--progress', 'json', '--progress-interval', '100']);
    await started(p);
    const cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8');
    const r = await p;
    expect(cmdline).not.toContain(SECRET);
    expect(r.exitCode).toBe(0);
    expect(`${r.stdout}${r.stderr}`).not.toContain(SECRET);
    const summaries = r.stderr.split('\n').filter((l) => l.includes('"type":"summary"')).map((l) => JSON.parse(l) as { route: string; rows: number; source: string });
    expect(summaries.map((s) => [s.route, s.rows]).sort()).toEqual([['follow', 300], ['lists.rf_list_a', 2], ['lists.rf_list_b', 1], ['orders', 300]]);
    // Shown as written: the reference, not its value.
    expect(summaries.find((s) => s.route === 'orders')!.source).toContain('${RF_PG_PASSWORD}');
    expect(await db('mariadb').rows('SELECT COUNT(*) AS n, SUM(amount) AS s FROM rf_follow')).toEqual([{ n: '300', s: '56437.50' }]);
    const { default: Database } = await import('better-sqlite3');
    const out = new Database(lite, { readonly: true });
    expect(out.prepare('SELECT COUNT(*) AS n FROM orders').get()).toEqual({ n: 300 });
    expect(out.prepare('SELECT k, v FROM rf_list_a ORDER BY k').all()).toEqual([{ k: 'a', v: 1 }, { k: 'b', v: 2 }]);
    expect(out.prepare('SELECT doc FROM rf_list_b').get()).toEqual({ doc: '{"x": [1, 2]}' });
    out.close();
    // The tail kept its own checkpoint: run again, nothing new to follow.
    const again = await bridge(['run', routes(), '--env-file', env, '--dry-run']);
    expect(again.exitCode).toBe(0);
    expect(`${again.stdout}${again.stderr}`).not.toContain(SECRET);
    expect(again.stdout).toMatch(/source position: after id=300/);
    expect(again.stdout.match(/^plan for bridge (copy|tail)/gm)).toHaveLength(4);
  }, 120_000);

  it('a mistake names the file, the line and the field, before any route writes', async () => {
    const cases: [string, RegExp][] = [
      ['  typo:\n    source: pg?table=rf_orders\n    sink: lite?table=t_typo\n    batch_sise: 10\n', /routes\.yaml:28: routes\.typo\.batch_sise: is not a route key \(did you mean batch_size\?\)/],
      ['  bad_field:\n    source:\n      connection: pg\n      table: rf_orders\n      cursor_colum: id\n    sink: lite?table=t_bad\n', /routes\.yaml:29: routes\.bad_field\.source: cursor_colum is not a field of the postgres source \(did you mean cursor_column\?\)/],
      ['  unknown:\n    source: pgg?table=rf_orders\n    sink: lite?table=x\n', /routes\.yaml:26: routes\.unknown\.source: "pgg" is neither an endpoint URL nor a connection of this file \(connections: pg, lite, maria\)/],
      ['  missing:\n    source: pg?table=rf_nope,rf_orders\n    sink: lite\n', /routes\.yaml:26: routes\.missing\.source: table rf_nope \(in the list table=rf_nope,rf_orders\) does not exist in the postgres source/],
    ];
    for (const [extra, want] of cases) {
      await db('mariadb').exec('DROP TABLE IF EXISTS rf_follow');
      const r = await bridge(['run', routes(extra)], { env: { RF_PG_PASSWORD: SECRET } });
      expect({ code: r.exitCode, err: r.stderr.trim() }).toEqual({ code: 2, err: expect.stringMatching(want) });
      expect(r.stderr).not.toContain(SECRET);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      // Nothing ran: the tail's target was not created.
      expect(await db('mariadb').rows("SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_NAME = 'rf_follow' AND TABLE_SCHEMA = DATABASE()")).toEqual([{ n: '0' }]);
    }
    const unset = await bridge(['run', routes()], { env: { RF_PG_PASSWORD: '' } });
    expect({ code: unset.exitCode, err: unset.stderr.trim() }).toEqual({ code: 2, err: expect.stringMatching(/environment variable RF_PG_PASSWORD .* is not set/) });
  }, 120_000);

  it('a password written in the file itself is used, masked, and warned about', async () => {
    const p = file('plain.yaml', `connections:\n  pg: ${PG_URL.replace('postgres://postgres@', `postgres://postgres:${SECRET}@`)}\nroutes:\n  - name: one\n    source: pg?table=rf_list_a\n    sink: "-"\n`);
    const r = await bridge(['run', p]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/plain\.yaml:2: connections\.pg holds a password in the file: write \$\{SOME_PASSWORD\}/);
    expect(r.stderr).not.toContain(SECRET);
  }, 60_000);

  it('waits on a tail route until stopped, then stops every route cleanly', async () => {
    await db('postgres').exec("DELETE FROM bridge_cursors_rf_orders WHERE cursor_id = 'rf-follow'");
    rmSync(lite, { force: true });
    await db('mariadb').exec('DROP TABLE IF EXISTS rf_follow');
    const p = spawnBridge(['run', routes(), '--progress', 'plain'], { env: { RF_PG_PASSWORD: SECRET, RF_DRAIN: 'false' } });
    await started(p);
    await waitFor(async () => String((await db('mariadb').rows('SELECT COUNT(*) AS n FROM rf_follow').catch(() => [{ n: 0 }]))[0]!.n) === '300');
    p.kill('SIGTERM');
    const r = await p;
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/bridge tail \[follow\]: stopped: /);
    expect(r.stderr).toMatch(/bridge run: 4 routes: 4 done/);
    expect(r.stderr).not.toContain(SECRET);
  }, 60_000);
});
