#!/usr/bin/env node
// Rewrites the README's performance table from one run of ../shared/bench-anchors (its runs.tsv):
// each bridge route beside the anchor of its family, measured in the same run, as a ratio of
// speeds (anchor time / bridge time: above 1 is faster than the anchor).
//   node scripts/readme-perf.js /tmp/anchors-<ts>            (writes README.md)
//   node scripts/readme-perf.js /tmp/anchors-<ts> --print    (prints the table only)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/readme-perf.js <anchors OUT folder> [--print]');
  process.exit(2);
}
const lines = readFileSync(path.join(dir, 'runs.tsv'), 'utf8').trim().split('\n');
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
const table = [
  `Measured in one run of \`../shared/bench-anchors\` (${machine}, ${path.basename(dir)}; ${sizes.map((s) => `${Number(s).toLocaleString('en-US')} rows`).join(' and ')}, ` +
    'median of the runs per route; two cores shared with the database servers). Speed is the anchor\'s time ÷ bridge\'s: above 1 bridge is faster. ' +
    'Client CPU is user + system of the client processes. Content is the target\'s fingerprint (counts, sums and hashes of every column) compared with the source\'s.',
  '',
  '| rows | route | anchor | speed vs anchor | wall (bridge / anchor) | client CPU (bridge / anchor) | bridge peak RSS | content |',
  '|---|---|---|---|---|---|---|---|',
  ...rows,
].join('\n');

if (process.argv.includes('--print')) {
  console.log(table);
} else {
  const file = new URL('../README.md', import.meta.url);
  const readme = readFileSync(file, 'utf8');
  const start = '<!-- perf:start -->';
  const end = '<!-- perf:end -->';
  if (!readme.includes(start)) throw new Error(`README.md has no ${start} … ${end} block`);
  writeFileSync(file, readme.replace(new RegExp(`${start}[\\s\\S]*?${end}`), `${start}\n${table}\n${end}`));
  console.log(`README.md performance table rewritten from ${dir}`);
}
