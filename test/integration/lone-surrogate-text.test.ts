import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Found by a helper probing serve: JSON may escape half of a UTF-16 surrogate pair (`"\ud800x"`),
 * which no UTF-8 text can hold. Into text columns with columns=auto, PostgreSQL and MariaDB stored
 * U+FFFD in its place (bytes ef bf bd 78) and SQLite stored ed a0 80 78, bytes that are not UTF-8
 * (bridge's own copy of that table then stopped with exit 4); all answered exit 0. The message is
 * now refused naming the field; a whole pair (`"\ud83d\ude00"`) still lands as 😀.
 */
const dir = tempDir();
let pg: TestDb;
let maria: TestDb;
let lite: TestDb;
type Letter = { payload: Record<string, unknown>; metadata: Record<string, string> };

beforeAll(async () => {
  pg = await postgres();
  maria = await mysqlLike('mariadb');
  lite = sqlite(path.join(dir, 'ls.db'));
  await pg.exec('DROP TABLE IF EXISTS lst; CREATE TABLE lst (id int PRIMARY KEY, s text)');
  await maria.exec('DROP TABLE IF EXISTS lst; CREATE TABLE lst (id int PRIMARY KEY, s text)');
  await lite.exec('CREATE TABLE lst (id INTEGER PRIMARY KEY, s TEXT)');
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS lst');
  await maria.exec('DROP TABLE IF EXISTS lst');
  for (const d of [pg, maria, lite]) await d.close();
});

describe('a JSON string holding half of a surrogate pair, into text columns', () => {
  const file = path.join(dir, 'lone.ndjson');
  writeFileSync(file, '{"id":1,"s":"\\ud800x"}\n{"id":2,"s":"\\ud83d\\ude00"}\n{"id":3,"s":"y\\udc00"}\n');
  const sinks: [string, () => TestDb, string][] = [
    ['PostgreSQL', () => pg, "SELECT id, s FROM lst ORDER BY id"],
    ['MariaDB', () => maria, 'SELECT id, s FROM lst ORDER BY id'],
    ['SQLite', () => lite, 'SELECT id, s FROM lst ORDER BY id'],
  ];
  for (const [name, db, query] of sinks) {
    it(`${name}: the two messages go to the dead letter naming field s; the whole pair lands as 😀`, async () => {
      const dead = path.join(dir, `${name}.dead.ndjson`);
      const r = await bridge(['copy', `file://${file}`, db().url('lst', 'columns=auto'), '--dead-letter', `file://${dead}`, '--progress', 'none']);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect((await db().rows(query)).map((x) => ({ id: Number(x.id), s: x.s }))).toEqual([{ id: 2, s: '😀' }]);
      const letters = parseLines(readFileSync(dead, 'utf8')) as Letter[];
      expect(letters.map((l) => l.payload.id)).toEqual([1, 3]);
      for (const l of letters) expect(l.metadata['bridge.error']).toMatch(/field s holds half of a UTF-16 surrogate pair/);
    });
  }
});
