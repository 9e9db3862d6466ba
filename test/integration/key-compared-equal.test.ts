import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * key= into a table whose key compares different texts equal. PostgreSQL's codes A, a, b, e, é:
 * into a SQLite `TEXT COLLATE NOCASE PRIMARY KEY` they were "done: 5 rows", exit 0, and the table
 * held four (A with a's n): ON CONFLICT had written 'a' over 'A'. Into a PostgreSQL citext key the
 * copy stopped with exit 1, "ON CONFLICT DO UPDATE command cannot affect row a second time", and a
 * later run would have merged 'a' into a stored 'A' quietly. A message whose key is not, byte for
 * byte, the key of the row it matched is now refused naming the field and both keys.
 */
const dir = tempDir();
let pg: TestDb;
let lite: TestDb;
type Letter = { payload: Record<string, unknown>; metadata: Record<string, string> };

beforeAll(async () => {
  pg = await postgres();
  lite = sqlite(path.join(dir, 'nocase.db'));
  await pg.exec(`CREATE EXTENSION IF NOT EXISTS citext; DROP TABLE IF EXISTS kce_src, kce_citext;
    CREATE TABLE kce_src (code text COLLATE "C" PRIMARY KEY, n int); INSERT INTO kce_src VALUES ('A', 2), ('a', 1), ('b', 3), ('e', 5), ('é', 4);
    CREATE TABLE kce_citext (code citext PRIMARY KEY, n int)`);
  await lite.exec('CREATE TABLE kce_nocase (code TEXT COLLATE NOCASE PRIMARY KEY, n INTEGER); CREATE TABLE kce_plain (code TEXT PRIMARY KEY, n INTEGER)');
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS kce_src, kce_citext');
  await pg.close();
  await lite.close();
});

const copy = (sink: string, extra: string[] = []) => bridge(['copy', pg.url('kce_src'), sink, '--progress', 'none', ...extra]);
const lettersOf = (file: string) => parseLines(readFileSync(file, 'utf8')) as Letter[];

describe('key= where the target compares two source keys equal', () => {
  it("SQLite NOCASE key: exit 4 naming the field; with --dead-letter 'a' is a dead letter and every row that landed is its source row", async () => {
    const r = await copy(lite.url('kce_nocase', 'columns=auto&key=code'));
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(String(r.stderr)).toMatch(/field code: the row this message's key matched holds code 'A', not 'a' \(equal by its collation/);
    const dead = path.join(dir, 'nocase.dead.ndjson');
    const d = await copy(lite.url('kce_nocase', 'columns=auto&key=code'), ['--dead-letter', `file://${dead}`]);
    expect(d.exitCode, String(d.stderr)).toBe(0);
    expect((await lite.rows('SELECT code, n FROM kce_nocase ORDER BY code COLLATE BINARY')).map((x) => ({ code: x.code, n: Number(x.n) }))).toEqual([
      { code: 'A', n: 2 },
      { code: 'b', n: 3 },
      { code: 'e', n: 5 },
      { code: 'é', n: 4 },
    ]);
    expect(lettersOf(dead).map((l) => l.payload)).toEqual([{ code: 'a', n: 1 }]);
  });

  it('SQLite BINARY key (guard against false refusals): five rows, run twice, exit 0', async () => {
    for (const round of [1, 2]) {
      const r = await copy(lite.url('kce_plain', 'columns=auto&key=code'));
      expect(r.exitCode, `round ${round}: ${String(r.stderr)}`).toBe(0);
    }
    expect(await lite.rows('SELECT count(*) AS n FROM kce_plain')).toEqual([{ n: 5n }]);
  });

  it("PostgreSQL citext key: no exit 1; with --dead-letter 'a' is a dead letter, the others land as their source rows", async () => {
    const dead = path.join(dir, 'citext.dead.ndjson');
    const r = await copy(pg.url('kce_citext', 'columns=auto&key=code'), ['--dead-letter', `file://${dead}`]);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows('SELECT code::text AS code, n FROM kce_citext ORDER BY code::text COLLATE "C"')).toEqual([
      { code: 'A', n: 2 },
      { code: 'b', n: 3 },
      { code: 'e', n: 5 },
      { code: 'é', n: 4 },
    ]);
    const letters = lettersOf(dead);
    expect(letters.map((l) => l.payload)).toEqual([{ code: 'a', n: 1 }]);
    expect(letters[0]!.metadata['bridge.error']).toMatch(/field code: the row this message's key matched holds code 'A', not 'a'/);
    const again = await copy(pg.url('kce_citext', 'columns=auto&key=code'));
    expect(again.exitCode, String(again.stderr)).toBe(4);
    expect(String(again.stderr)).toMatch(/field code: the row this message's key matched holds code 'A', not 'a'/);
  });
});
