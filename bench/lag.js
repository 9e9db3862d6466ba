// Delay from a committed INSERT to its arrival in the sink, for cursor polling and change capture.
// Rows carry created_at (clock_timestamp() at insert); the sink table stamps arrived_at on insert;
// both come from the same PostgreSQL clock.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROWS = Number(process.env.BENCH_LAG_ROWS ?? 200);
const psql = (sql) => execFileSync('psql', [PG, '-v', 'ON_ERROR_STOP=1', '-qAtc', `SET client_min_messages = warning; ${sql}`], { encoding: 'utf8' }).trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function measure(label, srcQuery) {
  psql(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'lag_slot' AND NOT active;
    DROP PUBLICATION IF EXISTS lag_pub; DROP TABLE IF EXISTS lag_src; DROP TABLE IF EXISTS lag_dst;
    CREATE TABLE lag_src (id serial PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE lag_dst (id int PRIMARY KEY, created_at timestamptz, arrived_at timestamptz NOT NULL DEFAULT clock_timestamp());`);
  const child = spawn(process.execPath, [path.join(root, 'bin/bridge.js'), 'tail', `${PG}?table=lag_src&${srcQuery}`, `${PG}?table=lag_dst&columns=auto`, '-q'], { stdio: 'inherit' });
  await sleep(1500);
  for (let i = 0; i < ROWS; i++) {
    psql('INSERT INTO lag_src DEFAULT VALUES');
    await sleep(20 + Math.random() * 40);
  }
  for (let i = 0; i < 100 && Number(psql('SELECT count(*) FROM lag_dst')) < ROWS; i++) await sleep(100);
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  const [p50, p95] = psql(
    `SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) || ' ' || round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 1)
       FROM (SELECT extract(epoch FROM arrived_at - created_at) * 1000 AS ms FROM lag_dst) x`,
  ).split(' ');
  console.log(`| ${label} | ${psql('SELECT count(*) FROM lag_dst')} | ${p50} ms | ${p95} ms |`);
}

console.log(`\nLag from committed INSERT to the row in the sink table (${ROWS} single-row transactions, 20–60 ms apart)`);
console.log('| mode | rows | median | p95 |');
console.log('|---|---|---|---|');
await measure('cursor polling, polling_interval_ms=100 (default)', 'cursor_column=id');
await measure('change capture (pgoutput)', 'publication=lag_pub&create_publication=true&slot_name=lag_slot');
psql(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'lag_slot' AND NOT active; DROP PUBLICATION IF EXISTS lag_pub; DROP TABLE IF EXISTS lag_src; DROP TABLE IF EXISTS lag_dst;`);
