// The live view's cost: the same 1M-row copy (PostgreSQL → NDJSON file) with --progress tty inside
// a real terminal (tmux) and with --progress none, alternating, median of BENCH_REPEAT runs each.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const out = path.join(root, 'bench/out');
const timeFile = path.join(out, 'view-time.txt');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function once(progress) {
  rmSync(timeFile, { force: true });
  const cmd = `/usr/bin/time -f %e -o ${timeFile} node ${path.join(root, 'bin/bridge.js')} copy '${PG}?table=bench_events' file://${out}/view.ndjson --progress ${progress}`;
  const session = `bridge-bench-${process.pid}`;
  execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40', cmd]);
  while (!existsSync(timeFile) || readFileSync(timeFile, 'utf8').trim() === '') await sleep(100);
  spawnSync('tmux', ['kill-session', '-t', session]);
  return Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop());
}

if (spawnSync('tmux', ['-V']).status !== 0) {
  console.log('view cost: tmux is not installed; skipped');
} else {
  const t = { tty: [], none: [] };
  for (let i = 0; i < REPEAT; i++) for (const p of ['none', 'tty']) t[p].push(await once(p));
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\nThe live view's cost (1M rows PostgreSQL → NDJSON, in tmux, median of ${REPEAT})`);
  console.log('| progress | seconds (runs) | × none |');
  console.log('|---|---|---|');
  for (const p of ['none', 'tty']) console.log(`| ${p} | ${med(t[p]).toFixed(2)} (${t[p].join(', ')}) | ${(med(t[p]) / med(t.none)).toFixed(3)} |`);
  rmSync(path.join(out, 'view.ndjson'), { force: true });
}
