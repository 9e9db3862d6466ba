// bridge serve → PostgreSQL under load, beside a bare Node http server that does nothing, in the
// same run. wrk (Debian package) drives 64 keep-alive connections with ~200-byte JSON bodies.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SERVE_SECONDS ?? 10);
const psql = (sql) => execFileSync('psql', [PG, '-qAtc', `SET client_min_messages = warning; ${sql}`], { encoding: 'utf8' }).trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });

const body = JSON.stringify({ user: 4242, event: 'page_view', path: '/products/12345/reviews', amount: '19.99', tags: ['a', 'b', 'c'], at: '2026-11-21T10:00:00.123456Z', note: 'x'.repeat(40) });
const lua = path.join(root, 'bench/out/post.lua');
writeFileSync(lua, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`);

function wrk(url) {
  const out = execFileSync('wrk', ['-t2', '-c64', `-d${SECONDS}s`, '--latency', '-s', lua, url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const total = Number(/(\d+) requests in/.exec(out)[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const p99text = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = Number(p99text[1]) * (p99text[2] === 'us' ? 0.001 : p99text[2] === 's' ? 1000 : 1);
  return { rps, total, ok: total - non2xx, non2xx, p99 };
}

async function run(label, start, count) {
  const port = await freePort();
  const child = start(port);
  await sleep(1500);
  const r = wrk(`http://127.0.0.1:${port}/`);
  child.kill('SIGTERM');
  await new Promise((res) => child.on('exit', res));
  const rows = count ? count() : undefined;
  return { label, ...r, rows };
}

const bridge = (port, extra, sink = 'columns=auto') =>
  spawn(process.execPath, [path.join(root, 'bin/bridge.js'), 'serve', `127.0.0.1:${port}?concurrency_limit=256&internal_buffer_size=1024${extra}`, `${PG}?table=serve_bench&${sink}`, '-q'], { stdio: 'inherit' });
const table = () => psql('DROP TABLE IF EXISTS serve_bench; CREATE TABLE serve_bench (user_id int, "user" int, event text, path text, amount numeric(10,2), tags jsonb, at timestamptz, note text)');
const rows = () => Number(psql('SELECT count(*) FROM serve_bench'));

const results = [];
results.push(
  await run('bare Node http server, replies 200, no database', (port) =>
    spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>{q.resume();q.on('end',()=>{s.writeHead(200);s.end()})}).listen(${port},'127.0.0.1')`], { stdio: 'inherit' }),
  ),
);
const queue = () => psql('DROP TABLE IF EXISTS serve_bench');
for (const [sink, prep, what] of [
  ['columns=auto', table, 'columns=auto into a typed table'],
  ['auto_create_table=true', queue, 'default insert into a queue table'],
]) {
  prep();
  results.push(await run(`bridge serve, fire_and_forget (202 at once), ${what}`, (port) => bridge(port, '&fire_and_forget=true', sink), rows));
  // 202 only once the message is fsynced to the local spool (a kill -9 loses nothing answered).
  const spool = mkdtempSync(path.join(tmpdir(), 'bench-spool-'));
  prep();
  results.push(await run(`bridge serve, fire_and_forget with spool_dir (202 once fsynced), ${what}`, (port) => bridge(port, `&fire_and_forget=true&spool_dir=${encodeURIComponent(spool)}`, sink), rows));
  rmSync(spool, { recursive: true, force: true });
  prep();
  results.push(await run(`bridge serve, answered after the insert is confirmed (204), ${what}`, (port) => bridge(port, '', sink), rows));
}
const base = results[0].rps;
console.log(`\nbridge serve → PostgreSQL, wrk -t2 -c64 -d${SECONDS}s, ${body.length}-byte JSON bodies; ${new Date().toISOString()}`);
console.log('| server | req/s | × bare server | p99 | 2xx answered | non-2xx | rows in table |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results)
  console.log(`| ${r.label} | ${Math.round(r.rps).toLocaleString('en-US')} | ${(r.rps / base).toFixed(2)} | ${r.p99.toFixed(1)} ms | ${r.ok.toLocaleString('en-US')} | ${r.non2xx} | ${r.rows ?? '–'} |`);
psql('DROP TABLE IF EXISTS serve_bench');
