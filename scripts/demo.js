#!/usr/bin/env node
// The embedded default: builds a SQLite database with an `events` table (no server needed) and
// copies it with bridge into a second SQLite database and into an NDJSON file.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'demo');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const src = path.join(dir, 'shop.db');
const db = new Database(src);
db.exec(`CREATE TABLE events (id INTEGER PRIMARY KEY, at DATETIME NOT NULL, kind TEXT NOT NULL, amount DECIMAL(12,2), doc JSON, big BIGINT)`);
const insert = db.prepare('INSERT INTO events (at, kind, amount, doc, big) VALUES (?, ?, ?, ?, ?)');
db.transaction(() => {
  for (let i = 1; i <= 10000; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace('T', ' ').replace('Z', '');
    insert.run(at, ['click', 'view', 'buy'][i % 3], (i % 1000) / 10, JSON.stringify({ user: i % 97, price: '30.00' }), 9007199254740993n + BigInt(i));
  }
})();
db.close();
console.log(`demo: wrote 10,000 rows to ${path.relative(root, src)}`);

const bridge = (args) => execFileSync(process.execPath, [path.join(root, 'bin/bridge.js'), ...args], { stdio: 'inherit', cwd: root });
bridge(['copy', `sqlite://demo/shop.db?table=events`, `sqlite://demo/lake.db?table=events&auto_create_table=true`, '--progress', 'plain']);
bridge(['copy', `sqlite://demo/shop.db?table=events&cursor_column=id&cursor_id=demo`, 'file://demo/events.ndjson', '--progress', 'plain']);
console.log('demo: first line of demo/events.ndjson:');
bridge(['copy', 'file://demo/events.ndjson', '-', '--limit', '1', '-q']);
console.log('\ndemo: the same cursor copy again resumes from its checkpoint and moves nothing new:');
bridge(['copy', `sqlite://demo/shop.db?table=events&cursor_column=id&cursor_id=demo`, 'file://demo/events-again.ndjson', '--progress', 'plain']);
