import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { postgres, type TestDb } from '../helpers/databases.js';

/**
 * Reported (issue 26, 9): a PostgreSQL json document with whitespace around it (' 1 ') came back
 * from an NDJSON file without it, unflagged. In a JSON line that whitespace is syntax between
 * tokens, not part of the field's value, so no reader keeps it: the plan says so, per column.
 */
const dir = tempDir();
let pg: TestDb;
beforeAll(async () => {
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS nj_docs, nj_back; CREATE TABLE nj_docs (id int PRIMARY KEY, j json, b jsonb, t text)');
  await pg.exec(`INSERT INTO nj_docs VALUES (1, ' 1 ', '1', 'x'), (2, ' {"a" : 1} ', '{}', ' y '), (3, 'null', 'null', NULL)`);
  await pg.exec('CREATE TABLE nj_back (LIKE nj_docs)');
});
afterAll(async () => {
  await pg.close();
});

it('PostgreSQL json with whitespace around the document → NDJSON: the dry run flags the column LOSSY, and the read-back lands what it said', async () => {
  const file = path.join(dir, 'docs.ndjson');
  const dry = await bridge(['copy', `${pg.url('nj_docs')}`, `file://${file}`, '--dry-run', '--progress', 'none']);
  expect(dry.exitCode, dry.stderr).toBe(0);
  expect(dry.stdout).toMatch(/ j json → JSON value\s+LOSSY: whitespace around the document/);
  expect(dry.stdout).toMatch(/ b jsonb → JSON value\s+LOSSY: the document null reads back as SQL NULL/);
  expect(dry.stdout).not.toMatch(/ b jsonb → [^\n]*whitespace/);
  expect(dry.stdout).toMatch(/ t text → JSON value *\n/);

  const r = await bridge(['copy', `${pg.url('nj_docs')}`, `file://${file}`, '--progress', 'none']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('{"id":1,"j": 1 ,"b":1,"t":"x"}');
  const back = await bridge(['copy', `file://${file}`, pg.url('nj_back', 'columns=auto'), '--progress', 'none']);
  expect(back.exitCode, back.stderr).toBe(0);
  expect(await pg.rows("SELECT id, j::text AS j, b::text AS b, t FROM nj_back ORDER BY id")).toEqual([
    { id: 1, j: '1', b: '1', t: 'x' },
    { id: 2, j: '{"a" : 1}', b: '{}', t: ' y ' },
    { id: 3, j: null, b: null, t: null },
  ]);
});
