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

const ALL = Array.from({ length: N }, (_, i) => i + 1);
const ids = (lines: string[]): number[] => lines.map((l) => (JSON.parse(l) as { id: number }).id);

/** Leaves `tail` after 3 whole lines, as a killed run would, appends with a fresh cursor_id, and returns the file's lines (the last one ended). */
async function appendAfter(name: string, tail: string, command: 'tail' | 'copy' = 'tail'): Promise<{ stderr: string; lines: string[] }> {
  const file = path.join(dir, `${name}.ndjson`);
  killedMidLine(file, tail);
  const r = await bridge([command, `${src}&cursor_id=${name}`, `file://${file}`, ...(command === 'tail' ? ['--exit-when-drained'] : []), '--progress', 'none']);
  expect(r.exitCode).toBe(0);
  const lines = readFileSync(file, 'utf8').split('\n');
  expect(lines.pop()).toBe('');
  return { stderr: r.stderr, lines };
}

describe('an NDJSON file a killed run left mid-line', () => {
  it('a tail killed in the middle of writing a line: the next run moves the torn line aside before appending, so every line parses and none is lost', async () => {
    const torn = row(4).slice(0, 9);
    const { stderr, lines } = await appendAfter('torn', torn);
    expect(stderr).toContain(`moved an unfinished last line (${Buffer.byteLength(torn)} bytes`);
    // Moved aside, not deleted: the last line might have been someone else's.
    const aside = readdirSync(dir).filter((f) => f.startsWith('torn.ndjson.unfinished-'));
    expect(aside.map((f) => readFileSync(path.join(dir, f), 'utf8'))).toEqual([torn]);
    // The 3 lines already there, then every row from the start (this cursor_id had no position yet).
    expect(ids(lines)).toEqual([1, 2, 3, ...ALL]);
  });

  it('a torn line longer than one read (a 200 KB value) is moved whole', async () => {
    const { lines } = await appendAfter('torn_long', `{"id":4,"v":"${'x'.repeat(200_000)}`, 'copy');
    expect(ids(lines)).toEqual([1, 2, 3, ...ALL]);
  });

  it('a last line that is whole JSON but lacks its newline (written by hand) is kept and ended, not cut', async () => {
    const { stderr, lines } = await appendAfter('by_hand', '{"note":"added by hand"}');
    expect(stderr).not.toContain('unfinished');
    expect(lines[3]).toBe('{"note":"added by hand"}');
    expect(ids(lines.slice(4))).toEqual(ALL);
  });

  it('a file that ends in a newline is appended to as it is', async () => {
    const { stderr, lines } = await appendAfter('whole', '');
    expect(stderr).not.toContain('unfinished');
    expect(lines).toEqual([1, 2, 3, ...ALL].map(row));
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

describe('exactly once into a file (issue 28)', () => {
  it('a run killed after its first batch was synced but before the length beside the file: the next run cuts those lines, none comes twice', async () => {
    const db = sqlite(path.join(dir, 'eo.db'));
    await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, v TEXT)');
    const file = path.join(dir, 'eo.ndjson');
    const args = ['tail', `sqlite://${dir}/eo.db?table=ev&cursor_column=id&cursor_id=eo`, `file://${file}`, '--exit-when-drained', '--progress', 'none'];
    // A run that wrote nothing yet has written the file's committed length (0) beside it.
    expect((await bridge(args)).exitCode).toBe(0);
    // What a run killed between syncing its first batch and writing the length beside the file leaves.
    writeFileSync(file, [row(1), row(2), row(3)].join('\n') + '\n');
    await db.exec(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 5) INSERT INTO ev SELECT i, 'row ' || i FROM g`);
    await db.close();
    const r = await bridge(args);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/cut \d+ bytes a stopped run wrote after its last confirmed batch/);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(ids(lines)).toEqual([1, 2, 3, 4, 5]);
  });
});
