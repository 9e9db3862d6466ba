#!/usr/bin/env node
// Rewrites the performance tables of docs/performance.md from one run of ../shared/bench-anchors: each copy
// route beside the anchor of its family (runs.tsv), as a ratio of speeds (anchor time / bridge
// time: above 1 is faster than the anchor); `serve` beside the no-database server and the best
// database server (http.jsonl); the tails beside polling and logical replication (tail.jsonl).
//   node scripts/readme-perf.js /tmp/anchors-<ts>            (writes docs/performance.md)
//   node scripts/readme-perf.js /tmp/anchors-<ts> --print    (prints the tables only)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/readme-perf.js <anchors OUT folder> [--print]');
  process.exit(2);
}
const tsv = path.join(dir, 'runs.tsv');
const lines = existsSync(tsv) ? readFileSync(tsv, 'utf8').trim().split('\n') : ['size'];
const head = lines.shift().split('\t');
const runs = lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [head[i], v])));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
function stat(size, family, route, target) {
  const rs = runs.filter((r) => r.size === size && r.family === family && r.route === route && r.target === target && r.rc === '0');
  if (!rs.length) return undefined;
  return {
    wall: median(rs.map((r) => Number(r.wall_s))),
    cpu: median(rs.map((r) => Number(r.user_s) + Number(r.sys_s))),
    rss: Math.max(...rs.map((r) => Number(r.maxrss_kb))) / 1024,
    verify: rs.find((r) => r.verify)?.verify ?? '',
    n: rs.length,
  };
}

// The anchor each route is judged against (issue 15), and a plain name for the route.
const ROUTES = [
  ['pg-pg', 'logged', 'psql-copy-text', 'PostgreSQL → PostgreSQL', '`psql COPY \\| psql COPY` (text)'],
  ['pg-pg', 'unlogged', 'psql-copy-text', 'PostgreSQL → PostgreSQL (unlogged target)', '`psql COPY \\| psql COPY` (text)'],
  ['my-pg', 'logged', 'node-mysql2-copy', 'MariaDB → PostgreSQL', 'Node mysql2 → COPY script'],
  ['sqlite-pg', 'logged', 'node-bsqlite3-copy', 'SQLite → PostgreSQL', 'Node better-sqlite3 → COPY script'],
  ['my-my', 'innodb', 'mysqldump-mysql', 'MariaDB → MariaDB', '`mariadb-dump \\| mariadb`'],
];
const sizes = [...new Set(runs.map((r) => r.size))].sort((a, b) => Number(b) - Number(a));
const rows = [];
for (const size of sizes)
  for (const [family, target, anchor, name, anchorName] of ROUTES) {
    const b = stat(size, family, 'BRIDGE', target);
    const a = stat(size, family, anchor, target);
    if (!b || !a) continue;
    const speed = (a.wall / b.wall).toFixed(2);
    rows.push(
      `| ${Number(size).toLocaleString('en-US')} | ${name} | ${anchorName} | **${speed}×** | ${b.wall.toFixed(2)} s / ${a.wall.toFixed(2)} s | ${b.cpu.toFixed(1)} s / ${a.cpu.toFixed(1)} s | ${Math.round(b.rss)} MB | ${b.verify === 'ok' ? 'equal' : b.verify || '?'} |`,
    );
  }
const machine = readFileSync(path.join(dir, 'machine.txt'), 'utf8').match(/^date: (.*)$/m)?.[1] ?? '';
const jsonl = (name) => (existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

/** serve beside the no-database server and the best database anchor, medians of the runs. */
function httpTable() {
  const http = jsonl('http.jsonl').filter((r) => r.wrk);
  const med = (mode, f) => {
    const xs = http.filter((r) => r.mode === mode).map(f);
    return xs.length ? median(xs) : undefined;
  };
  const b = med('BRIDGE', (r) => r.wrk.rps);
  const nodb = med('nodb', (r) => r.wrk.rps);
  if (b === undefined || nodb === undefined) return [];
  const best = ['adaptive', 'batch', 'pool'].map((m) => [m, med(m, (r) => r.wrk.rps)]).filter(([, v]) => v !== undefined).sort((x, y) => y[1] - x[1])[0];
  const k = (x) => `${(x / 1000).toFixed(1)} k`;
  return [
    '',
    '| `serve` into PostgreSQL (wrk, 64 connections) | req/s | × no-database server | × best database anchor | p99 ms | rows stored per request |',
    '|---|---|---|---|---|---|',
    `| bridge (reply after commit) | ${k(b)} | **${(b / nodb).toFixed(2)}×** (${k(nodb)}) | **${best ? (b / best[1]).toFixed(2) : '–'}×** (${best ? `${best[0]}, ${k(best[1])}` : '–'}) | ${med('BRIDGE', (r) => r.wrk.p99_ms).toFixed(1)} | ${med('BRIDGE', (r) => r.rows_in_table / r.wrk.requests).toFixed(3)} |`,
  ];
}

/** The tails beside the anchors that see the same inserts: polling every 100 ms, logical replication. */
function tailTable() {
  const tail = jsonl('tail.jsonl');
  const of = (l) => tail.find((r) => r.listener === l);
  const pairs = [
    ['BRIDGE-cursor', 'poll-100ms', 'cursor tail (`cursor_column`)', 'a poller every 100 ms'],
    ['BRIDGE-publication', 'logical', 'change capture (`publication`)', 'pgoutput logical replication'],
  ].filter(([b, a]) => of(b) && of(a));
  if (!pairs.length) return [];
  return [
    '',
    '| tail | INSERT → seen, p50 / p95 | anchor | anchor p50 / p95 | rows seen |',
    '|---|---|---|---|---|',
    ...pairs.map(([b, a, name, anchorName]) => `| ${name} | ${of(b).p50_ms} / ${of(b).p95_ms} ms | ${anchorName} | ${of(a).p50_ms} / ${of(a).p95_ms} ms | ${of(b).seen} of ${of(b).inserts} |`),
  ];
}

const copies = rows.length
  ? [
      `Measured in one run of \`../shared/bench-anchors\` (${machine}, ${path.basename(dir)}; ${sizes.map((s) => `${Number(s).toLocaleString('en-US')} rows`).join(' and ')}, ` +
        'median of the runs per route; two cores shared with the database servers). Speed is the anchor\'s time ÷ bridge\'s: above 1 bridge is faster. ' +
        'Client CPU is user + system of the client processes. Content is the target\'s fingerprint (counts, sums and hashes of every column) compared with the source\'s.',
      '',
      '| rows | route | anchor | speed vs anchor | wall (bridge / anchor) | client CPU (bridge / anchor) | bridge peak RSS | content |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
    ]
  : [`Measured in one run of \`../shared/bench-anchors\` (${machine}, ${path.basename(dir)}).`];
const table = [...copies, ...httpTable(), ...tailTable()].join('\n');

if (process.argv.includes('--print')) {
  console.log(table);
} else {
  const file = new URL('../docs/performance.md', import.meta.url);
  const doc = readFileSync(file, 'utf8');
  const start = '<!-- perf:start -->';
  const end = '<!-- perf:end -->';
  if (!doc.includes(start)) throw new Error(`docs/performance.md has no ${start} … ${end} block`);
  writeFileSync(file, doc.replace(new RegExp(`${start}[\\s\\S]*?${end}`), `${start}\n${table}\n${end}`));
  console.log(`docs/performance.md performance tables rewritten from ${dir}`);
}
