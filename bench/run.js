#!/usr/bin/env node
// npm run bench: bridge against psql's own COPY pipe on the same data, in the same run.
// Figures are printed as rows/s, time ratio against the baseline, and peak RSS.
// Env: BENCH_ROWS (default 1000000), BENCH_PG (default postgres://postgres@127.0.0.1:5432/test), BENCH_ONLY (comma list of case names).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PG = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const ONLY = process.env.BENCH_ONLY?.split(',');
const out = path.join(root, 'bench/out');
mkdirSync(out, { recursive: true });

const psql = (sql) => execFileSync('psql', [PG, '-v', 'ON_ERROR_STOP=1', '-qAtc', `SET client_min_messages = warning; ${sql}`], { encoding: 'utf8' }).trim();

function ensureSource() {
  const have = psql(`SELECT CASE WHEN to_regclass('bench_events') IS NULL THEN -1 ELSE (SELECT count(*) FROM bench_events) END`);
  if (Number(have) === ROWS) return;
  console.error(`bench: generating ${ROWS} rows in bench_events (perf-notes shape)…`);
  psql(`DROP TABLE IF EXISTS bench_events;
    CREATE TABLE bench_events (id bigint PRIMARY KEY, at timestamptz NOT NULL, kind int NOT NULL, name text NOT NULL, amount numeric(12,2) NOT NULL, doc jsonb NOT NULL, note text);
    INSERT INTO bench_events SELECT g, timestamptz '2024-01-01' + g * interval '1 second', g % 100, 'event-' || (g % 1000), (g % 100000) / 100.0,
      jsonb_build_object('user', g % 5000, 'tags', jsonb_build_array('a','b','c'), 'price', 30.00, 'text', repeat('x', 120)),
      CASE WHEN g % 10 = 0 THEN NULL ELSE E'line\\twith tab\\nand newline \\\\ backslash ü ' || g END
    FROM generate_series(1, ${ROWS}) g;
    ANALYZE bench_events;`);
}

/** Runs a shell command under GNU time; returns seconds and the peak RSS (MB) of the largest process. */
function measure(cmd) {
  const r = spawnSync('bash', ['-c', cmd], { encoding: 'utf8', cwd: root, env: { ...process.env, TIMEFORMAT: '%R' } });
  if (r.status !== 0) throw new Error(`failed: ${cmd}\n${r.stderr}`);
  const rss = [...r.stderr.matchAll(/RSS_KB=(\d+)/g)].map((m) => Number(m[1]));
  const wall = [...r.stderr.matchAll(/WALL=([\d.]+)/g)].map((m) => Number(m[1]));
  return { seconds: Math.max(...wall), rssMb: Math.max(...rss) / 1024 };
}
const timed = (cmd) => `/usr/bin/time -f 'WALL=%e RSS_KB=%M' ${cmd}`;

const sinkTable = `bench_copy_target`;
const resetTarget = () =>
  psql(`DROP TABLE IF EXISTS ${sinkTable}; CREATE TABLE ${sinkTable} (LIKE bench_events INCLUDING ALL); DROP TABLE IF EXISTS bench_queue;`);
const bridgeCmd = (args) => timed(`node bin/bridge.js ${args} -q`);

const cases = [
  {
    name: 'psql-pipe',
    label: 'psql COPY TO STDOUT → psql COPY FROM STDIN (baseline)',
    prepare: resetTarget,
    cmd: () => `${timed(`psql ${PG} -qc '\\copy bench_events to stdout'`)} | ${timed(`psql ${PG} -qc '\\copy ${sinkTable} from stdin'`)}`,
  },
  {
    name: 'psql-to-file',
    label: 'psql COPY TO STDOUT into a file (baseline for file sinks)',
    cmd: () => `${timed(`psql ${PG} -qc '\\copy bench_events to stdout'`)} > ${out}/psql.copy`,
  },
  {
    name: 'pg-ndjson',
    label: 'bridge copy PostgreSQL → NDJSON file',
    cmd: () => bridgeCmd(`copy '${PG}?table=bench_events' file://${out}/bridge.ndjson`),
  },
  {
    name: 'pg-pg',
    label: 'bridge copy PostgreSQL → PostgreSQL (default insert: JSON rows into a queue table)',
    prepare: resetTarget,
    cmd: () => bridgeCmd(`copy '${PG}?table=bench_events' '${PG}?table=bench_queue&auto_create_table=true'`),
  },
];

ensureSource();
const results = [];
for (const c of cases) {
  if (ONLY && !ONLY.includes(c.name) && !c.name.startsWith('psql')) continue;
  c.prepare?.();
  const m = measure(c.cmd());
  results.push({ ...c, ...m });
  console.error(`bench: ${c.label}: ${m.seconds.toFixed(2)} s, peak RSS ${m.rssMb.toFixed(0)} MB`);
}
const base = results.find((r) => r.name === 'psql-pipe');
console.log(`\n${ROWS.toLocaleString('en-US')} rows of bench_events (${psql(`SELECT pg_size_pretty(pg_total_relation_size('bench_events'))`)}); ${new Date().toISOString()}`);
console.log('| route | seconds | rows/s | time × psql pipe | peak RSS |');
console.log('|---|---|---|---|---|');
for (const r of results)
  console.log(`| ${r.label} | ${r.seconds.toFixed(2)} | ${Math.round(ROWS / r.seconds).toLocaleString('en-US')} | ${(r.seconds / base.seconds).toFixed(2)} | ${r.rssMb.toFixed(0)} MB |`);
rmSync(path.join(out, 'bridge.ndjson'), { force: true });
rmSync(path.join(out, 'psql.copy'), { force: true });
psql(`DROP TABLE IF EXISTS ${sinkTable}; DROP TABLE IF EXISTS bench_queue;`);
