import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir, writeNdjson } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * key= into a MariaDB table the user made, whose key compares case- and accent-insensitively
 * (utf8mb4_general_ci, the server's usual default): PostgreSQL's five codes a, A, b, é, e were
 * "done: 5 rows", exit 0, and the table held three, A with a's n and e with é's. INSERT … ON
 * DUPLICATE KEY UPDATE had written each over the row its collation called equal. It also matches
 * by any unique key: a message for id 2 whose email another row has was written into row 1. The
 * merge now refuses a message whose key differs from the row it matched (exit 4 or the dead letter,
 * naming the field and both keys); a message that matches its own row still updates it.
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;
type Letter = { payload: Record<string, unknown>; metadata: Record<string, string> };

beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  await pg.exec("DROP TABLE IF EXISTS uo_codes; CREATE TABLE uo_codes (code text COLLATE \"C\" PRIMARY KEY, n int); INSERT INTO uo_codes VALUES ('A', 2), ('a', 1), ('b', 3), ('e', 5), ('é', 4)");
  await maria.exec('DROP TABLE IF EXISTS uo_codes, uo_users');
  await maria.exec('CREATE TABLE uo_codes (code varchar(10) COLLATE utf8mb4_general_ci PRIMARY KEY, n int)');
  await maria.exec("CREATE TABLE uo_users (id int PRIMARY KEY, email varchar(40) UNIQUE, n int); INSERT INTO uo_users VALUES (1, 'x@y', 1)");
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS uo_codes');
  await maria.exec('DROP TABLE IF EXISTS uo_codes, uo_users');
  await pg.close();
  await maria.close();
});

describe('key= merges into MariaDB that would write a message over another row', () => {
  it('codes its collation calls equal: without a dead letter exit 4 naming the field and both keys', async () => {
    const r = await bridge(['copy', pg.url('uo_codes'), maria.url('uo_codes', 'columns=auto&key=code'), '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(String(r.stderr)).toMatch(/field code: the row this message's key matched holds code 'A', not 'a'/);
  });

  it('with --dead-letter: each row that lands is its source row exactly, the others are dead letters', async () => {
    await maria.exec('DELETE FROM uo_codes');
    const dead = path.join(dir, 'codes.dead.ndjson');
    const r = await bridge(['copy', pg.url('uo_codes'), maria.url('uo_codes', 'columns=auto&key=code'), '--dead-letter', `file://${dead}`, '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const landed = (await maria.rows('SELECT code, n FROM uo_codes ORDER BY BINARY code')).map((x) => ({ code: x.code, n: Number(x.n) }));
    expect(landed).toEqual([
      { code: 'A', n: 2 },
      { code: 'b', n: 3 },
      { code: 'e', n: 5 },
    ]);
    const letters = parseLines(readFileSync(dead, 'utf8')) as Letter[];
    expect(letters.map((l) => l.payload)).toEqual([
      { code: 'a', n: 1 },
      { code: 'é', n: 4 },
    ]);
    for (const l of letters) expect(l.metadata['bridge.error']).toMatch(/field code: the row this message's key matched holds code/);
  });

  it('a message for id 2 whose email row 1 has is refused, row 1 unchanged; row 1 itself still updates', async () => {
    const file = writeNdjson(dir, 'users.ndjson', [{ id: 2, email: 'x@y', n: 2 }]);
    const r = await bridge(['copy', file, maria.url('uo_users', 'columns=auto&key=id'), '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(4);
    expect(String(r.stderr)).toMatch(/field id: the row this message's key matched holds id '1', not '2'/);
    const same = writeNdjson(dir, 'users-same.ndjson', [{ id: 1, email: 'x@y', n: 7 }]);
    const ok = await bridge(['copy', same, maria.url('uo_users', 'columns=auto&key=id'), '--progress', 'none']);
    expect(ok.exitCode, String(ok.stderr)).toBe(0);
    expect((await maria.rows('SELECT id, email, n FROM uo_users')).map((x) => ({ id: Number(x.id), email: x.email, n: Number(x.n) }))).toEqual([{ id: 1, email: 'x@y', n: 7 }]);
  });
});
