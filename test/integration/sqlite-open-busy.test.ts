import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnBridge, tempDir } from '../helpers/bridge.js';

/**
 * CI run of 59dc642: a copy into a new SQLite file failed with exit 3, "cannot open SQLite
 * database: database is locked", because another process read the file the moment it appeared
 * (the test's own check that rows had arrived), while bridge set the new file to WAL. Setting the
 * journal mode, like any PRAGMA the URL gives, needs the file to itself: a reader holding it for a
 * moment must be waited for (as a locked COMMIT is, up to 5 s), not turned into a failed run.
 */
const dir = tempDir();

describe('a SQLite target another process is reading when bridge opens it', () => {
  it('a PRAGMA at open (journal_mode=WAL) waits for the reader instead of failing the run', async () => {
    const file = path.join(dir, 'busy.db');
    const setup = new Database(file);
    setup.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    setup.close();
    const input = path.join(dir, 'in.ndjson');
    writeFileSync(input, [1, 2, 3].map((i) => JSON.stringify({ id: i, v: `v${i}` })).join('\n') + '\n');
    // A reader in this process holds the file's shared lock for 700 ms (rollback journal: a pending write waits for it).
    const reader = new Database(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    const p = spawnBridge(['copy', `file://${input}`, `sqlite://${file}?table=t&columns=auto&journal_mode=WAL`, '--progress', 'none']);
    await new Promise((r) => setTimeout(r, 700));
    reader.exec('COMMIT');
    reader.close();
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT id, v FROM t ORDER BY id').all()).toEqual([1, 2, 3].map((i) => ({ id: i, v: `v${i}` })));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});
