// Concurrent writers for the cursor-race tests: each client loops BEGIN; sleep; INSERT; sleep; COMMIT
// (0–10 ms each sleep) until the deadline, so transactions commit out of the order they took their
// cursor values in. Usage: node race-writer.mjs <mariadb|sqlite> <url-or-file> <table> <clients> <seconds>
// (PostgreSQL uses pgbench itself.) Prints the number of committed transactions. With a sixth
// argument `updates`, half the transactions update a random row already there (its w and mtime)
// instead of inserting: versions of delivered rows that commit late.
const [kind, target, table, clients, seconds, mode] = process.argv.slice(2);
const updates = mode === 'updates';
let maxId = 0;
const end = Date.now() + Number(seconds) * 1000;
const pause = () => Math.random() * 0.01;
let committed = 0;

if (kind === 'mariadb') {
  const mysql = (await import('mysql2/promise')).default;
  await Promise.all(
    Array.from({ length: Number(clients) }, async (_, w) => {
      const c = await mysql.createConnection({ uri: target });
      while (Date.now() < end) {
        await c.query('START TRANSACTION');
        await c.query('DO SLEEP(?)', [pause()]);
        if (updates && maxId > 0 && Math.random() < 0.5) await c.query(`UPDATE ${table} SET v = v + 1, mtime = now(6) WHERE id = ?`, [1 + Math.floor(Math.random() * maxId)]);
        else maxId = Math.max(maxId, (await c.query(`INSERT INTO ${table} (w) VALUES (?)`, [w]))[0].insertId);
        await c.query('DO SLEEP(?)', [pause()]);
        await c.query('COMMIT');
        committed++;
      }
      await c.end();
    }),
  );
} else {
  // SQLite: one process per client (the library is synchronous), each holding its transaction open.
  const { fork } = await import('node:child_process');
  if (process.env.RACE_CHILD) {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(target, { timeout: 10000 });
    const sleep = (s) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, s * 1000);
    while (Date.now() < end) {
      // Read before BEGIN: a read inside a deferred transaction would have to upgrade its lock, which SQLite refuses (busy) without waiting.
      const max = updates ? Number(db.prepare(`SELECT COALESCE(max(id), 0) AS m FROM ${table}`).get().m) : 0;
      db.exec('BEGIN');
      sleep(pause());
      if (max > 0 && Math.random() < 0.5) db.prepare(`UPDATE ${table} SET v = v + 1, mtime = strftime('%Y-%m-%d %H:%M:%f','now') WHERE id = ?`).run(1 + Math.floor(Math.random() * max));
      else db.prepare(`INSERT INTO ${table} (w, mtime) VALUES (?, strftime('%Y-%m-%d %H:%M:%f','now'))`).run(Number(process.env.RACE_CHILD));
      sleep(pause());
      db.exec('COMMIT');
      committed++;
    }
    process.send?.(committed);
    process.exit(0);
  }
  const counts = await Promise.all(
    Array.from({ length: Number(clients) }, (_, w) => new Promise((resolve) => {
      const p = fork(new URL(import.meta.url).pathname, process.argv.slice(2), { env: { ...process.env, RACE_CHILD: String(w + 1) } });
      p.on('message', resolve);
    })),
  );
  committed = counts.reduce((a, b) => a + b, 0);
}
console.log(committed);
