import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, BIN, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/** Issue 13: configuration that used to do the dangerous thing, and secrets that used to show. */
const dir = tempDir();
const file = path.join(dir, 'safe.db');
let lite: TestDb;
let pg: TestDb;
beforeAll(async () => {
  lite = sqlite(file);
  pg = await postgres();
  await lite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  await pg.exec('DROP TABLE IF EXISTS t_cfg; CREATE TABLE t_cfg (id int PRIMARY KEY); INSERT INTO t_cfg VALUES (1), (2)');
});
afterAll(async () => {
  await lite.close();
  await pg.close();
});

describe('configuration that does the dangerous thing is refused', () => {
  it('an empty boolean (delete_after_read= from an unset variable) is an error, and no row is deleted', async () => {
    const r = await bridge(['copy', `sqlite://${file}?table=t&delete_after_read=`, '-']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('delete_after_read is empty: write delete_after_read=true or delete_after_read=false');
    expect(await lite.rows('SELECT count(*) AS n FROM t')).toEqual([{ n: 2n }]);
  });

  it('a PostgreSQL URL key one typo from a field (cursor_di) or unknown to PostgreSQL (zzzz) is an error, not a full copy', async () => {
    const typo = await bridge(['copy', `${PG_URL}?table=t_cfg&cursor_column=id&cursor_di=x`, '-']);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('cursor_di is not a field of the postgres source (did you mean cursor_id?)');
    expect(typo.stdout).toBe('');
    const unknown = await bridge(['copy', `${PG_URL}?table=t_cfg&zzzz=1`, '-']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('zzzz is neither a field of the postgres connector nor a PostgreSQL connection parameter');
    const real = await bridge(['copy', `${PG_URL}?table=t_cfg&application_name=nightly&connect_timeout=5`, '-', '-q']);
    expect(real.exitCode).toBe(0);
  });

  it('copy with a misspelled field (cursor_colum) stops instead of falling back to a full snapshot', async () => {
    const r = await bridge(['copy', `${PG_URL}?table=t_cfg&cursor_colum=id`, '-']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('did you mean cursor_column?');
    expect(r.stdout).toBe('');
  });

  it('mysql:// with tls required against a server without TLS cannot connect (exit 3), and says which side', async () => {
    const r = await bridge(['copy', `mysql://root@127.0.0.1:3306/test?table=t&tls=${encodeURIComponent('{"required":true}')}`, '-']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/bridge: error: source: cannot connect/);
  });

  it('connection errors say whether the source or the sink failed', async () => {
    const r = await bridge(['copy', `${PG_URL}?table=t_cfg`, 'postgres://postgres@127.0.0.1:1/test?table=x&connect_timeout=2']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/bridge: error: sink: cannot connect to PostgreSQL/);
  });
});

describe('secrets never show', () => {
  const plainAndJson = async (args: string[]) => [await bridge(args), await bridge([...args, '--progress', 'json'])];

  it('a password with an unencoded / is not printed; the error says to percent-encode it', async () => {
    for (const r of await plainAndJson(['copy', 'postgres://app:Xk9Lmq2Pz/7w@db.example/app?table=t', '-'])) {
      expect(r.exitCode).toBe(2);
      expect(r.stderr).not.toContain('Xk9Lmq2Pz');
      expect(r.stderr).not.toContain('7w@');
      expect(r.stderr).toContain('percent-encoded (/ as %2F');
    }
  });

  it('a misspelled secret key (pasword=) is refused without showing its value', async () => {
    for (const r of await plainAndJson(['copy', `${PG_URL}?table=t_cfg&pasword=TopSecret99`, '-'])) {
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('did you mean password?');
      expect(r.stderr).not.toContain('TopSecret99');
    }
  });

  it('the checkpoint_store file name is not printed in plans or summaries', async () => {
    const store = path.join(dir, 'private-cursors-7f3a.json');
    const url = `sqlite://${file}?table=t&cursor_column=id&cursor_id=c1&checkpoint_store=file://${store}`;
    for (const args of [['copy', url, '-', '--dry-run'], ['copy', url, '-'], ['copy', url, '-', '--progress', 'json']]) {
      const r = await bridge(args);
      expect(r.exitCode).toBe(0);
      expect(r.stdout + r.stderr).not.toContain('private-cursors-7f3a');
      expect(r.stdout + r.stderr).toMatch(/checkpoint_store \(a local file\)/);
    }
    expect(existsSync(store)).toBe(true);
    expect(readFileSync(store, 'utf8')).toContain('bridge_checkpoint');
  });

  it("a password given as '${VAR}' is read from the environment and never appears in /proc/<pid>/cmdline", async () => {
    const p = spawn('node', [BIN, 'tail', `${PG_URL.replace('postgres@', 'postgres:${BRIDGE_TEST_PW}@')}?table=t_cfg&cursor_column=id`, '-', '-q'], { env: { ...process.env, BRIDGE_TEST_PW: 'EnvOnlyPw77' }, stdio: 'ignore' });
    let seen = false;
    const end = Date.now() + 2500;
    while (Date.now() < end) {
      try {
        if (readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes('EnvOnlyPw77')) seen = true;
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    p.kill('SIGTERM');
    expect(seen).toBe(false);
  });
});
