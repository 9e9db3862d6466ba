import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, lines, spawnBridge, started, tempDir, waitFor } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

const dir = tempDir();
const SECRET = 'Sup3rS3cretPassw0rd';
let pgdb: TestDb;
let sq: TestDb;
beforeAll(async () => {
  pgdb = await postgres();
  sq = sqlite(path.join(dir, 'errors.db'));
  await pgdb.exec('DROP TABLE IF EXISTS t_err; CREATE TABLE t_err (id int PRIMARY KEY, n int, label text)');
  await pgdb.exec("INSERT INTO t_err VALUES (1, 1, 'a'), (2, 1, 'b')");
  await sq.exec('CREATE TABLE IF NOT EXISTS t_err (id INTEGER PRIMARY KEY, v TEXT)');
});
afterAll(async () => {
  await pgdb.close();
  await sq.close();
});

/** The error line users see: exactly one `bridge: error:` line. */
function errorLine(stderr: string): string {
  const errs = lines(stderr).filter((l) => l.startsWith('bridge: error:'));
  expect(errs).toHaveLength(1);
  return errs[0]!;
}

describe('invalid combinations are config errors (exit 2) naming the fields (decisions §5)', () => {
  const pg = (q: string): string => `${PG_URL}?table=t_err&${q}`;
  const cases: [string, string[], RegExp][] = [
    ['cursor_column + delete_after_read', ['copy', pg('cursor_column=id&delete_after_read=true'), '-'], /cursor_column and delete_after_read/],
    ['select_query on MySQL', ['copy', 'mysql://root@127.0.0.1/test?table=t&select_query=SELECT 1', '-'], /select_query is not supported on mysql/],
    ['select_query without its placeholder', ['copy', pg('select_query=SELECT * FROM t_err LIMIT 10'), '-'], /select_query must contain .*\$1/],
    ['select_query + cursor_column', ['copy', pg('select_query=SELECT * FROM t_err LIMIT $1&cursor_column=id'), '-'], /select_query and cursor_column/],
    ['source_metadata without cursor_column', ['copy', pg('source_metadata=true'), '-'], /source_metadata needs cursor_column/],
    ['publication on SQLite', ['copy', `sqlite://${dir}/errors.db?table=t_err&publication=p`, '-'], /publication is not supported on sqlite/],
    ['tls on SQLite', ['copy', `sqlite://${dir}/errors.db?table=t_err&tls={"required":true}`, '-'], /tls is not supported on sqlite/],
    ['a source field on the sink', ['copy', 'file:///dev/null', pg('cursor_column=id')], /cursor_column is a source \(consumer\) field; it cannot be set on the sink/],
    ['a sink field on the source', ['copy', pg('auto_create_table=true'), '-'], /auto_create_table is a sink \(publisher\) field/],
    ['key without columns', ['copy', '-', pg('key=id')], /key needs columns=auto/],
    ['extra_column without columns', ['copy', '-', pg('extra_column=x')], /extra_column needs columns=auto/],
    ['columns with insert_query', ['copy', '-', pg('columns=auto&insert_query=INSERT INTO t_err (id) VALUES (?)')], /columns=auto and insert_query cannot be combined/],
    ['auto_create_table with a token query', ['copy', '-', pg('auto_create_table=true&insert_query=INSERT INTO t_err (id) VALUES (${payload:id})')], /auto_create_table cannot be combined with a token insert_query/],
    ['lookup_query with columns', ['copy', '-', pg('lookup_query=SELECT 1&columns=auto'), '-'], /lookup_query answers messages instead of writing them; it cannot be combined with columns/],
    ['bulk_copy on MySQL', ['copy', '-', 'mysql://root@127.0.0.1/test?table=t&bulk_copy=true'], /bulk_copy is not supported on mysql/],
    ['a bad integer', ['copy', pg('polling_interval_ms=fast&cursor_column=id'), '-'], /polling_interval_ms must be an integer/],
    ['a bad enum', ['copy', pg('timestamps=iso'), '-'], /timestamps must be one of text, rfc3339/],
    ['malformed JSON object', ['copy', pg('tls={required:true}'), '-'], /tls is not valid JSON/],
    ['unknown tls key', ['copy', pg('tls={"verify":true}'), '-'], /tls\.verify is not a field of tls/],
    ['unknown scheme', ['copy', 'oracle://db/x?table=t', '-'], /unknown endpoint scheme "oracle:\/\/"/],
    ['no table', ['copy', PG_URL, '-'], /needs a table/],
    // Taken as a name, quoted: t_err is still there for the cases after this one.
    ['a table name carrying SQL', ['copy', `${PG_URL}?table=t_err;DROP TABLE t_err`, '-'], /table t_err;DROP TABLE t_err does not exist/],
    ['a table name with a double quote', ['copy', `${PG_URL}?table=t_err"; DROP TABLE t_err; --`, '-'], /table "t_err"; DROP TABLE t_err; --" cannot be named here: a name holds no dot, comma, \*, double quote/],
    ['a missing table', ['copy', `${PG_URL}?table=no_such_table_here`, '-'], /table no_such_table_here does not exist/],
    ['cursor_column that is not a column', ['copy', pg('cursor_column=nope'), '-'], /cursor_column "nope" is not a column of t_err/],
    ['source_metadata on a non-unique column', ['copy', pg('cursor_column=n&source_metadata=true'), '-'], /source_metadata needs cursor_column to be a unique integer column/],
    ['checkpoint_store without cursor_id', ['copy', pg('cursor_column=id&checkpoint_store=file:///tmp/x.json'), '-'], /checkpoint_store needs cursor_id/],
    ['a flag for a field the source lacks', ['copy', '-', '-', '--cursor-column', 'id'], /cursor_column is not a field of the ndjson source/],
  ];
  for (const [name, args, pattern] of cases) {
    it(name, async () => {
      const r = await bridge(args);
      expect(r.exitCode).toBe(2);
      expect(errorLine(r.stderr)).toMatch(pattern);
    });
  }

  it('a query key one typo away from a field warns and names the field', async () => {
    const r = await bridge(['copy', `sqlite://${dir}/errors.db?table=t_err&cursor_colum=id`, '-']);
    expect(r.exitCode).toBe(2); // not a PRAGMA either, so SQLite refuses it
    expect(r.stderr).toContain('did you mean cursor_column?');
  });
});

describe('connection failures exit 3 and never print a password', () => {
  it('an unreachable PostgreSQL', async () => {
    const r = await bridge(['copy', `postgres://app:${SECRET}@127.0.0.1:1/x?table=t`, '-']);
    expect(r.exitCode).toBe(3);
    expect(errorLine(r.stderr)).toMatch(/cannot connect to PostgreSQL/);
    expect(r.stderr + r.stdout).not.toContain(SECRET);
  });

  it('MariaDB refusing a password, with JSON progress', async () => {
    const r = await bridge(['copy', `mysql://root:${SECRET}@127.0.0.1:3306/test?table=t`, '-', '--progress', 'json']);
    expect(r.exitCode).toBe(3);
    const objs = lines(r.stderr).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs.find((o) => o.type === 'error')).toMatchObject({ exit_code: 3 });
    expect(objs.find((o) => o.type === 'summary')).toMatchObject({ ok: false, exit_code: 3, source: 'mysql://***@127.0.0.1:3306/test?table=t' });
    expect(r.stderr).not.toContain(SECRET);
  });

  it('the password field and a checkpoint_store are masked too', async () => {
    const r = await bridge(['copy', `postgres://127.0.0.1:1/x?table=t&password=${SECRET}&cursor_column=id&cursor_id=c&checkpoint_store=s3://AKIA:${SECRET}@bucket/p`, '-', '--progress', 'json']);
    expect([2, 3]).toContain(r.exitCode);
    expect(r.stderr).not.toContain(SECRET);
  });

  it('the process title does not show secrets given on the command line', async () => {
    const p = spawnBridge(['tail', `${PG_URL.replace('postgres@', `postgres:${SECRET}@`)}?table=t_err&cursor_column=id`, 'file:///dev/null', '--progress', 'none']);
    const args = await waitFor(async () => {
      try {
        const out = execFileSync('ps', ['-o', 'args=', '-p', String(p.pid)], { encoding: 'utf8' }).trim();
        return out.startsWith('bridge') ? out : undefined;
      } catch {
        return undefined;
      }
    });
    expect(args).not.toContain(SECRET);
    p.kill('SIGTERM');
    const r = await p;
    expect({ exitCode: r.exitCode, signal: r.signal }).toEqual({ exitCode: 0, signal: undefined });
  });

  it('a SIGTERM at any moment of start-up (ps already shows it) stops it cleanly: exit 0 and the stopped summary', async () => {
    // Every 4 ms from the title on: while modules load, while signals are handed over, while connecting.
    for (let i = 0; i < 25; i++) {
      const p = spawnBridge(['tail', `${PG_URL}?table=t_err&cursor_column=id`, 'file:///dev/null', '--progress', 'none']);
      await started(p);
      await new Promise((r) => setTimeout(r, 4 * i));
      p.kill('SIGTERM');
      const r = await p;
      expect({ exitCode: r.exitCode, signal: r.signal }).toEqual({ exitCode: 0, signal: undefined });
      // Rows read before the signal was heard are delivered and counted: 0 on a slow start, a few on a fast one.
      expect(r.stderr).toMatch(/^bridge: SIGTERM: stopping.*\nbridge tail: stopped: [\d,]+ rows? in /);
    }
  });
});

describe('input and plans', () => {
  it('a broken NDJSON line says which line', async () => {
    const file = path.join(dir, 'broken.ndjson');
    writeFileSync(file, '{"a":1}\n{"a":2}\n{"a":\n{"a":4}\n');
    const r = await bridge(['copy', `file://${file}`, '-', '--batch-size', '1']);
    expect(r.exitCode).toBe(4);
    expect(errorLine(r.stderr)).toMatch(/line 3 of .*broken\.ndjson is not valid JSON/);
    expect(r.stdout).toBe('{"a":1}\n{"a":2}');
  });

  it('--dry-run connects, prints the plan and writes nothing', async () => {
    const target = path.join(dir, 'dry.db');
    const r = await bridge(['copy', `${PG_URL}?table=t_err`, `sqlite://${target}?table=out&auto_create_table=true`, '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('source mode: snapshot, every row as a JSON object, paged by id');
    expect(r.stdout).toContain('source rows to read: ~2');
    expect(r.stdout).toContain('sink sink: sqlite table out (would be created, queue shape)');
    const check = sqlite(target);
    expect(await check.rows(`SELECT name FROM sqlite_master WHERE name = 'out'`)).toEqual([]);
    await check.close();
    expect(existsSync(path.join(dir, 'dry.ndjson'))).toBe(false);
  });
});
