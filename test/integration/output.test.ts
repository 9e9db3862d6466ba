import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, bridge, lines, spawnBridge, tempDir } from '../helpers/bridge.js';
import { mysqlLike, PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/** What users see on stderr in each --progress mode, and the dry-run plan. */
const dir = tempDir();
let pg: TestDb;
let my: TestDb;
let src: string;
beforeAll(async () => {
  pg = await postgres();
  my = await mysqlLike('mariadb');
  const db = sqlite(path.join(dir, 'out.db'));
  await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT)');
  await db.exec("WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 3000) INSERT INTO ev SELECT i, 'v' || i FROM g");
  await db.close();
  src = `sqlite://${dir}/out.db?table=ev`;
});
afterAll(async () => {
  await pg.close();
  await my.close();
});

describe('--progress modes', () => {
  it('plain (not a terminal): progress lines and a summary; none: only the summary; -q: nothing', async () => {
    const plain = await bridge(['copy', src, 'file:///dev/null', '--progress-interval', '1', '--batch-size', '100']);
    expect(plain.exitCode).toBe(0);
    expect(plain.stderr).toMatch(/^bridge copy: [\d,]+ rows, [\d,]+ rows\/s \(avg [\d,]+\)/m);
    expect(lines(plain.stderr).pop()).toMatch(/^bridge copy: done: 3,000 rows in [\d.]+ s \([\d,]+ rows\/s, [\d.]+ kB\); last position id=3000; delivery at least once$/);
    const none = await bridge(['copy', src, 'file:///dev/null', '--progress', 'none']);
    expect(lines(none.stderr)).toHaveLength(1);
    const quiet = await bridge(['copy', src, 'file:///dev/null', '-q']);
    expect(quiet.stderr).toBe('');
  });

  it('json: one object per line, progress then summary, with the figures', async () => {
    const r = await bridge(['copy', src, 'file:///dev/null', '--progress', 'json', '--progress-interval', '1', '--batch-size', '100']);
    const objs = lines(r.stderr).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs.some((o) => o.type === 'progress')).toBe(true);
    expect(objs.at(-1)).toMatchObject({ type: 'summary', ok: true, exit_code: 0, command: 'copy', rows: 3000, rows_read: 3000, retries: 0, position: 'id=3000', estimated_rows: 3000 });
  });

  it('a tail that has read everything says it is caught up, without a percentage of a passed estimate', async () => {
    const p = spawnBridge(['tail', `${src}&cursor_column=id`, 'file:///dev/null', '--progress', 'plain', '--progress-interval', '200']);
    await new Promise((r) => setTimeout(r, 2500));
    p.kill('SIGTERM');
    const out = String((await p).stderr);
    const last = lines(out).filter((l) => /^bridge tail: [\d,]+ rows/.test(l)).pop()!;
    expect(last).toContain('caught up, waiting for new rows');
    expect(last).not.toMatch(/% of ~/);
    const j = spawnBridge(['tail', `${src}&cursor_column=id`, 'file:///dev/null', '--progress', 'json', '--progress-interval', '200']);
    await new Promise((r) => setTimeout(r, 2500));
    j.kill('SIGTERM');
    const objs = lines(String((await j).stderr)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs.filter((o) => o.type === 'progress').pop()).toMatchObject({ caught_up: true, rows: 3000 });
  });

  it('stdout read by `head -1`: the copy stops when the reader goes away, exit 0, no error line', async () => {
    const r = await execa('bash', ['-c', `node ${BIN} copy '${src}' - --batch-size 100 --progress none | head -1; echo "exit \${PIPESTATUS[0]}" >&2`], { reject: false });
    expect(r.stdout).toBe('{"id":1,"v":"v1"}');
    expect(r.stderr).not.toMatch(/error|failed/);
    expect(r.stderr).toMatch(/^bridge copy: stopped: [\d,]+ rows in .*\nexit 0$/);
  });

  it('data never goes to stderr, the view never to stdout', async () => {
    const r = await bridge(['copy', src, '-', '--progress', 'plain', '--progress-interval', '1', '--limit', '5']);
    expect(lines(r.stdout)).toHaveLength(5);
    expect(r.stdout).not.toContain('bridge');
    expect(r.stderr).not.toContain('"v":"v1"');
  });
});

describe('--dry-run plans', () => {
  it('flags the values columns=auto would refuse, with each cast, and nothing that lands exactly', async () => {
    await pg.exec("DROP TABLE IF EXISTS t_plan; CREATE TABLE t_plan (id bigint PRIMARY KEY, amount numeric(30,10), at timestamp(6), f float8, note text); INSERT INTO t_plan VALUES (1, 1.5, now(), 1, 'x')");
    await my.exec('DROP TABLE IF EXISTS t_plan; CREATE TABLE t_plan (id int PRIMARY KEY, amount double, at datetime, f double, note varchar(10))');
    const r = await bridge(['copy', `${PG_URL}?table=t_plan`, my.url('t_plan', 'columns=auto&key=id'), '--dry-run']);
    expect(r.exitCode).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/id bigint → id int\(11\)\s+REJECTS: integers outside -2147483648..2147483647\n/);
    expect(out).toMatch(/amount numeric\(30,10\) → amount double\s+REJECTS: numbers with more digits than a double holds; NaN\n/);
    expect(out).toMatch(/at timestamp\(6\) without time zone → at datetime\s+REJECTS: times with more than 0 fractional digits \(datetime would round them\); ±infinity; dates before year 1000 or after 9999 \(BC dates\)\n/);
    expect(out).toMatch(/f double precision → f double\s+REJECTS: NaN; ±Infinity; -0 \(the column does not keep the sign of zero\)\n/);
    expect(out).toMatch(/note text → note varchar\(10\)\s+REJECTS: values longer than 10 characters\n/);
    expect(out).toContain('source query: SELECT * FROM "t_plan" WHERE ("id") > (<last key>) ORDER BY "id" LIMIT 1024');
    expect(out).toContain('sink key: id: rows with an existing key are updated');
    expect(r.stderr).toContain('dry run: connected and planned; nothing was written');
    expect(Number((await my.rows('SELECT count(*) AS n FROM t_plan'))[0]!.n)).toBe(0);
  });
});
