import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, bridge, tempDir } from '../helpers/bridge.js';
import { sqlite } from '../helpers/databases.js';

/**
 * A SIGKILL can land inside the write of a batch: the kernel stops a regular-file write between
 * pages, so the file ends in part of a line. That batch was never confirmed, so the next run
 * delivers it again, appending. Appended straight after the fragment, the first new line would
 * be glued onto it and neither would parse. The next run must cut the fragment off first.
 */
const dir = tempDir();
let src: string;
const N = 50;
const row = (i: number) => JSON.stringify({ id: i, v: `row ${i}` });

beforeAll(async () => {
  const db = sqlite(path.join(dir, 'src.db'));
  await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT)');
  await db.exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${N}) INSERT INTO ev SELECT i, 'row ' || i FROM g`);
  await db.close();
  src = `sqlite://${dir}/src.db?table=ev&cursor_column=id`;
});

/** What a run killed after 3 confirmed lines, in the middle of the 4th, leaves. */
function killedMidLine(file: string, tail: string): void {
  writeFileSync(file, [row(1), row(2), row(3)].join('\n') + '\n' + tail);
}

describe('an NDJSON file a killed run left mid-line', () => {
  it('a tail killed in the middle of writing a line: the next run cuts the torn line off before appending, so every line parses and none is lost', async () => {
    const file = path.join(dir, 'torn.ndjson');
    const torn = row(4).slice(0, 9);
    killedMidLine(file, torn);
    const r = await bridge(['tail', `${src}&cursor_id=torn`, `file://${file}`, '--exit-when-drained', '--progress', 'none']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`moved an unfinished last line (${Buffer.byteLength(torn)} bytes`);
    // Moved aside, not deleted: the last line might have been someone else's.
    const aside = readdirSync(dir).filter((f) => f.startsWith('torn.ndjson.unfinished-'));
    expect(aside.map((f) => readFileSync(path.join(dir, f), 'utf8'))).toEqual([torn]);
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const got = text.split('\n').slice(0, -1).map((l) => JSON.parse(l) as { id: number });
    // The 3 lines already there, then every row from the start (this cursor_id had no position yet).
    expect(got.map((g) => g.id)).toEqual([1, 2, 3, ...Array.from({ length: N }, (_, i) => i + 1)]);
  });

  it('a torn line longer than one read (a 200 KB value) is cut whole', async () => {
    const file = path.join(dir, 'torn-long.ndjson');
    killedMidLine(file, `{"id":4,"v":"${'x'.repeat(200_000)}`);
    const r = await bridge(['copy', `${src}&cursor_id=torn_long`, `file://${file}`, '--progress', 'none']);
    expect(r.exitCode).toBe(0);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2, 3, ...Array.from({ length: N }, (_, i) => i + 1)]);
  });

  it('a last line that is whole JSON but lacks its newline (written by hand) is kept and ended, not cut', async () => {
    const file = path.join(dir, 'by-hand.ndjson');
    killedMidLine(file, '{"note":"added by hand"}');
    const r = await bridge(['tail', `${src}&cursor_id=by_hand`, `file://${file}`, '--exit-when-drained', '--progress', 'none']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain('unfinished');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines[3]).toBe('{"note":"added by hand"}');
    expect(lines.slice(4).map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  });

  it('a file that ends in a newline is appended to as it is', async () => {
    const file = path.join(dir, 'whole.ndjson');
    killedMidLine(file, '');
    const r = await bridge(['tail', `${src}&cursor_id=whole`, `file://${file}`, '--exit-when-drained', '--progress', 'none']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain('unfinished');
    expect(readFileSync(file, 'utf8')).toBe([1, 2, 3, ...Array.from({ length: N }, (_, i) => i + 1)].map(row).join('\n') + '\n');
  });

  it('a FIFO whose reader goes away (| head) ends the run: the sink does not hold the pipe open for reading itself', async () => {
    const big = sqlite(path.join(dir, 'big.db'));
    await big.exec("CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT); WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 20000) INSERT INTO ev SELECT i, printf('%.100c', 'x') FROM g");
    await big.close();
    const cmd = `node ${BIN} tail 'sqlite://${dir}/big.db?table=ev&cursor_column=id' file:///dev/stdout --exit-when-drained --progress none | head -c 100 > /dev/null; echo "\${PIPESTATUS[0]}"`;
    const r = await execa('bash', ['-c', cmd], { timeout: 30_000, reject: false });
    expect(r.timedOut).toBe(false);
    expect(r.stdout.trim()).toMatch(/^\d+$/);
  }, 40_000);
});
