// Concurrent writers for the cursor-race tests: each client loops BEGIN; sleep; INSERT; sleep; COMMIT
// (0–10 ms each sleep) until the deadline, so transactions commit out of the order they took their
// cursor values in. Usage: node race-writer.mjs <mariadb|sqlite> <url-or-file> <table> <clients> <seconds>
// (PostgreSQL uses pgbench itself.) Prints the number of committed rows.
const [kind, target, table, clients, seconds] = process.argv.slice(2);
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
        await c.query(`INSERT INTO ${table} (w) VALUES (?)`, [w]);
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
      db.exec('BEGIN');
      sleep(pause());
      db.prepare(`INSERT INTO ${table} (w, mtime) VALUES (?, strftime('%Y-%m-%d %H:%M:%f','now'))`).run(Number(process.env.RACE_CHILD));
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
