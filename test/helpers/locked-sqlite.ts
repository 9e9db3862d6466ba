import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface LockedSqlite {
  /** The sink endpoint: table `ev` (n, tag), payload fields as columns. */
  url: string;
  /** Holds an exclusive lock: bridge's inserts wait (up to 5 s) until `unlock`. */
  lock(): void;
  unlock(): void;
  rows(): { n: number; tag: string }[];
  close(): void;
}

/** An SQLite sink file the test can lock, to keep a write in flight and later requests queued behind it. */
export function lockedSqlite(): LockedSqlite {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bridge-locked-')), 'sink.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE ev (n INTEGER, tag TEXT)');
  return {
    url: `sqlite://${file}?table=ev&columns=auto`,
    lock: () => db.exec('BEGIN EXCLUSIVE'),
    unlock: () => db.exec('COMMIT'),
    rows: () => db.prepare('SELECT n, tag FROM ev ORDER BY rowid').all() as { n: number; tag: string }[],
    close: () => db.close(),
  };
}
