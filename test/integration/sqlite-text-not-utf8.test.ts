import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, lines, tempDir } from '../helpers/bridge.js';
import { postgres, type TestDb } from '../helpers/databases.js';

/**
 * Found probing with strangers' data: SQLite stores TEXT as given, unchecked, and applications
 * writing through the C API leave Latin-1 or cut UTF-8 in it (bytes c3 28: a lead byte without its
 * continuation). better-sqlite3 decodes every TEXT value as UTF-8 and puts U+FFFD in place of such
 * bytes, so a copy into PostgreSQL stored "\uFFFD(" for them, exit 0: a value changed quietly. Now
 * such a value stops the read with exit 4 naming the table, the field and the bytes; a real U+FFFD
 * (bytes ef bf bd) is a character like any other and lands as it is.
 */
const dir = tempDir();
const srcFile = path.join(dir, 'src.db');
let src: Database.Database;
let pg: TestDb;

beforeAll(async () => {
  src = new Database(srcFile);
  src.pragma('journal_mode = WAL');
  src.exec(`
    CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
    INSERT INTO notes VALUES (1, 'plain'), (2, 'caf' || CAST(x'e9' AS TEXT)), (3, 'after');
    CREATE TABLE marks (id INTEGER PRIMARY KEY, body TEXT);
    INSERT INTO marks VALUES (1, CAST(x'efbfbd' AS TEXT)), (2, 'x' || CAST(x'efbfbd28' AS TEXT));
    CREATE TABLE cut (id INTEGER PRIMARY KEY, body TEXT);
    INSERT INTO cut VALUES (1, CAST(x'f09f98' AS TEXT) || 'z');
    CREATE VIEW notes_view AS SELECT id, body FROM notes;
    CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, locked_until TEXT, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
    INSERT INTO outbox (payload) VALUES ('{"s":"' || CAST(x'efbfbd' AS TEXT) || '"}');
  `);
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS utf8_notes, utf8_marks, utf8_cut');
  await pg.exec('CREATE TABLE utf8_notes (id bigint PRIMARY KEY, body text)');
  await pg.exec('CREATE TABLE utf8_marks (id bigint PRIMARY KEY, body text)');
  await pg.exec('CREATE TABLE utf8_cut (id bigint PRIMARY KEY, body text)');
});
afterAll(async () => {
  src.close();
  await pg.exec('DROP TABLE IF EXISTS utf8_notes, utf8_marks, utf8_cut');
  await pg.close();
});

const copy = (from: string, to: string, ...more: string[]) => bridge(['copy', from, to, '--progress', 'none', ...more]);

describe('SQLite text whose bytes are not UTF-8', () => {
  it('a Latin-1 byte in a TEXT value stops the copy into PostgreSQL with exit 4 naming the field; no U+FFFD is stored', async () => {
    const r = await copy(`sqlite://${srcFile}?table=notes`, pg.url('utf8_notes', 'columns=auto'));
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/field body .*not UTF-8.*\be9\b/);
    expect(r.stderr).toContain('notes');
    const stored = await pg.rows("SELECT id FROM utf8_notes WHERE body LIKE '%' || chr(65533) || '%'");
    expect(stored).toEqual([]);
  });

  it('the same into NDJSON, and with a dead-letter endpoint: exit 4, nothing replaced', async () => {
    const out = path.join(dir, 'notes.ndjson');
    const r = await copy(`sqlite://${srcFile}?table=notes`, `file://${out}`, '--dead-letter', `file://${path.join(dir, 'dead.ndjson')}`);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/field body .*not UTF-8/);
    const text = (() => {
      try {
        return readFileSync(out, 'utf8');
      } catch {
        return '';
      }
    })();
    expect(text).not.toContain('\uFFFD');
  });

  it('a view over such a table is refused the same way', async () => {
    const r = await copy(`sqlite://${srcFile}?table=notes_view`, 'file:///dev/null');
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/field body .*not UTF-8/);
  });

  it('a 4-byte character cut short (f0 9f 98, as long as the U+FFFD it reads as) is refused too', async () => {
    const r = await copy(`sqlite://${srcFile}?table=cut`, pg.url('utf8_cut', 'columns=auto'));
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/field body .*not UTF-8.*f0 9f 98/);
    expect(await pg.rows('SELECT id FROM utf8_cut')).toEqual([]);
  });

  it('a real U+FFFD (bytes ef bf bd) lands exactly, into PostgreSQL and into NDJSON', async () => {
    const r = await copy(`sqlite://${srcFile}?table=marks`, pg.url('utf8_marks', 'columns=auto'));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await pg.rows('SELECT id, body FROM utf8_marks ORDER BY id')).toEqual([
      { id: '1', body: '\uFFFD' },
      { id: '2', body: 'x\uFFFD(' },
    ]);
    const nd = await bridge(['copy', `sqlite://${srcFile}?table=marks`, '-', '--progress', 'none']);
    expect(nd.exitCode, nd.stderr).toBe(0);
    expect(lines(nd.stdout).map((l) => JSON.parse(l))).toEqual([
      { id: 1, body: '\uFFFD' },
      { id: 2, body: 'x\uFFFD(' },
    ]);
  });

  it('a queue drained by lease (UPDATE … RETURNING, a statement that cannot be read again) takes a real U+FFFD as it is', async () => {
    const r = await bridge(['copy', `sqlite://${srcFile}?table=outbox&delete_after_read=true`, '-', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(r.stdout).map((l) => JSON.parse(l))).toEqual([{ s: '\uFFFD' }]);
  });
});
