import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { postgres, type TestDb } from '../helpers/databases.js';

/**
 * Found probing with strangers' data: SQLite does not check a column declared JSON, so one holds
 * plain text ('abc', '') beside documents. A copy into PostgreSQL stored 'abc' as the JSON string
 * "abc" in a json column and as the five characters "abc" (quotes included) in a text column, exit
 * 0 and not even counted as lossy: the value had changed. Text that is not JSON is now what it is,
 * text: a text column takes it as it was, a JSON column rejects it (exit 4, naming the field), and
 * a real JSON string ('"str"') is still the document it was.
 */
const dir = tempDir();
const srcFile = path.join(dir, 'docs.db');
let pg: TestDb;

beforeAll(async () => {
  const src = new Database(srcFile);
  src.exec(`
    CREATE TABLE docs (id INTEGER PRIMARY KEY, doc JSON);
    INSERT INTO docs VALUES (1, '{"a":1}'), (2, 'abc'), (3, '"str"'), (4, ''), (5, NULL);
    CREATE TABLE good (id INTEGER PRIMARY KEY, doc JSON);
    INSERT INTO good VALUES (1, '{"a":1}'), (2, '"str"'), (3, '[1,2]');
  `);
  src.close();
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS sjn_text, sjn_json, sjn_good');
  await pg.exec('CREATE TABLE sjn_text (id bigint PRIMARY KEY, doc text)');
  await pg.exec('CREATE TABLE sjn_json (id bigint PRIMARY KEY, doc jsonb)');
  await pg.exec('CREATE TABLE sjn_good (id bigint PRIMARY KEY, doc jsonb)');
});
afterAll(async () => {
  await pg.exec('DROP TABLE IF EXISTS sjn_text, sjn_json, sjn_good');
  await pg.close();
});

const copy = (table: string, to: string) => bridge(['copy', `sqlite://${srcFile}?table=${table}`, to, '--progress', 'none']);

describe('a SQLite column declared JSON that holds text which is not JSON', () => {
  it('into a PostgreSQL text column each value lands as the text it was (no quotes added)', async () => {
    const r = await copy('docs', pg.url('sjn_text', 'columns=auto'));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows('SELECT id::int, doc FROM sjn_text ORDER BY id')).toEqual([
      { id: 1, doc: '{"a":1}' },
      { id: 2, doc: 'abc' },
      { id: 3, doc: '"str"' },
      { id: 4, doc: '' },
      { id: 5, doc: null },
    ]);
  });

  it('into a PostgreSQL jsonb column the copy stops with exit 4 naming the field, and "abc" is never stored as a JSON string', async () => {
    const r = await copy('docs', pg.url('sjn_json', 'columns=auto'));
    expect(r.exitCode, String(r.stdout)).toBe(4);
    expect(String(r.stderr)).toMatch(/doc.*not JSON.*"abc"/);
    expect(await pg.rows(`SELECT id::int FROM sjn_json WHERE doc = '"abc"'::jsonb OR doc = '""'::jsonb`)).toEqual([]);
  });

  it('--dry-run says the column can reject text that is not JSON', async () => {
    const r = await bridge(['copy', `sqlite://${srcFile}?table=docs`, pg.url('sjn_json', 'columns=auto'), '--dry-run', '--progress', 'none']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stdout)).toMatch(/doc JSON → doc jsonb.*REJECTS: text that is not JSON \(SQLite does not check a column declared JSON\)/);
  });

  it('documents that are JSON, a JSON string among them, still land as those documents', async () => {
    const r = await copy('good', pg.url('sjn_good', 'columns=auto'));
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(await pg.rows('SELECT id::int, doc::text AS doc, jsonb_typeof(doc) AS t FROM sjn_good ORDER BY id')).toEqual([
      { id: 1, doc: '{"a": 1}', t: 'object' },
      { id: 2, doc: '"str"', t: 'string' },
      { id: 3, doc: '[1, 2]', t: 'array' },
    ]);
  });

  it('into a SQLite column declared JSON the values go as they were read', async () => {
    const dst = path.join(dir, 'dst.db');
    const d = new Database(dst);
    d.exec('CREATE TABLE docs (id INTEGER PRIMARY KEY, doc JSON)');
    d.close();
    const r = await copy('docs', `sqlite://${dst}?table=docs&columns=auto`);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const back = new Database(dst, { readonly: true });
    expect(back.prepare('SELECT id, doc, typeof(doc) AS t FROM docs ORDER BY id').all()).toEqual([
      { id: 1, doc: '{"a":1}', t: 'text' },
      { id: 2, doc: 'abc', t: 'text' },
      { id: 3, doc: '"str"', t: 'text' },
      { id: 4, doc: '', t: 'text' },
      { id: 5, doc: null, t: 'null' },
    ]);
    back.close();
  });
});
