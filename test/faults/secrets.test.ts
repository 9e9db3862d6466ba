import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, ROOT, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { MYSQL_URL, PG_URL, postgres, type TestDb } from '../helpers/databases.js';
import { record } from './report.js';

/** Issue 7, secrets: every failure path, run with secrets everywhere, is scanned for them. */
const dir = tempDir();
const S = {
  url: 'UrlPassw0rd-7f3a',
  field: 'FieldPassw0rd-91bc',
  basic: 'BasicPassw0rd-c4d2',
  header: 'HeaderToken-55e1a9',
  store: 'StoreSecret-a8f0',
};
const ALL = Object.values(S);
let pg: TestDb;
let server: http.Server;
let httpUrl = '';
beforeAll(async () => {
  pg = await postgres();
  await pg.exec('DROP TABLE IF EXISTS t_sec; CREATE TABLE t_sec (id int PRIMARY KEY, v text NOT NULL)');
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url?.includes('fail') ? 400 : 500);
      res.end(`echo ${req.headers.authorization ?? ''} ${req.headers['x-api-key'] ?? ''}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  httpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await pg.close();
  server.close();
});

const fixture = path.join(dir, 'in.ndjson');
writeFileSync(fixture, '{"id":1}\n{"id":2,"v":"x"}\n');
const basic = encodeURIComponent(JSON.stringify(['svc', S.basic]));
const headers = encodeURIComponent(JSON.stringify({ 'x-api-key': S.header }));
const store = encodeURIComponent(`postgres://u:${S.store}@127.0.0.1:1/x`);

const CASES: [string, string[]][] = [
  ['unreachable PostgreSQL, password in the URL', ['copy', `postgres://app:${S.url}@127.0.0.1:1/db?table=t`, '-']],
  ['password field', ['copy', `postgres://127.0.0.1:1/db?table=t&password=${S.field}`, '-']],
  ['a misspelled secret key (pasword=)', ['copy', `postgres://127.0.0.1:1/db?table=t&pasword=${S.field}`, '-']],
  ['a password with an unencoded / in the URL', ['copy', `postgres://app:${S.url}/7w@127.0.0.1:1/db?table=t`, '-']],
  ['MariaDB refusing the URL password', ['copy', `mysql://root:${S.url}@127.0.0.1:3306/test?table=t`, '-']],
  ['unreachable checkpoint store', ['copy', `${PG_URL}?table=t_sec&cursor_column=id&cursor_id=s1&checkpoint_store=${store}`, '-']],
  ['a rejected row, password in the sink URL', ['copy', `file://${fixture}`, `${PG_URL.replace('postgres@', `postgres:${S.url}@`)}?table=t_sec&columns=auto`]],
  ['HTTP sink answering 400 with the credentials echoed', ['copy', `file://${fixture}`, `${httpUrl}/fail?basic_auth=${basic}&custom_headers=${headers}`]],
  ['HTTP sink answering 500 until retries run out', ['copy', `file://${fixture}`, `${httpUrl}/x?basic_auth=${basic}&custom_headers=${headers}`, '--max-retries', '1']],
  ['bad TLS key password', ['copy', '-', `${httpUrl}/x?tls=${encodeURIComponent(JSON.stringify({ cert_file: '/nonexistent', cert_password: S.field }))}`]],
  ['a config error next to the secrets', ['copy', `postgres://app:${S.url}@127.0.0.1:1/db?table=t&cursor_colum=id&checkpoint_store=${store}`, '-', '--limit', 'x']],
  ['listener with basic auth on a busy port', ['serve', `${httpUrl.replace('http://', '')}?basic_auth=${basic}&custom_headers=${headers}`, '-']],
];

describe('secrets never appear in output', () => {
  for (const [name, args] of CASES)
    for (const progress of ['plain', 'json'])
      it(`${name} (--progress ${progress})`, async () => {
        const r = await bridge([...args, '--progress', progress], { input: '{"id":1}\n' });
        expect(r.exitCode).not.toBe(0);
        for (const secret of ALL) {
          expect(r.stderr).not.toContain(secret);
          expect(r.stdout).not.toContain(secret);
        }
        if (progress === 'plain') record({ scenario: `secrets: ${name}`, runs: 2, lost: 0, duplicates: 0, outcome: `exit ${r.exitCode}, no secret in stdout/stderr/JSON` });
      });

  it('nor in the process title of a running tail', async () => {
    const p = spawnBridge(['tail', `${PG_URL.replace('postgres@', `postgres:${S.url}@`)}?table=t_sec&cursor_column=id&password=${S.field}`, `${httpUrl}/x?basic_auth=${basic}&custom_headers=${headers}`, '-q']);
    const title = await waitFor(async () => {
      const out = execFileSync('ps', ['-o', 'args=', '-p', String(p.pid)], { encoding: 'utf8' }).trim();
      return out.startsWith('bridge') ? out : undefined;
    });
    for (const secret of ALL) expect(title).not.toContain(secret);
    const cmdline = execFileSync('cat', [`/proc/${p.pid}/cmdline`], { encoding: 'utf8' });
    for (const secret of ALL) expect(cmdline).not.toContain(secret);
    p.kill('SIGTERM');
    await p;
    record({ scenario: 'secrets: process title and /proc/<pid>/cmdline of a running tail', runs: 1, lost: 0, duplicates: 0, outcome: 'no secret visible' });
  });
});

describe('a hostile peer: a Python http.server that echoes every request header in its errors', () => {
  let peer: ChildProcess;
  let peerUrl = '';
  beforeAll(async () => {
    const portFile = path.join(dir, 'peer.port');
    peer = spawn('python3', [path.join(ROOT, 'test/helpers/echo-peer.py'), portFile], { stdio: 'ignore' });
    const port = await waitFor(async () => (existsSync(portFile) ? readFileSync(portFile, 'utf8').trim() || undefined : undefined));
    peerUrl = `http://127.0.0.1:${port}`;
    await pg.exec("INSERT INTO t_sec VALUES (101, 'a'), (102, 'b'), (103, 'c') ON CONFLICT DO NOTHING");
  });
  afterAll(() => {
    peer.kill();
  });
  // The Authorization header as the peer echoes it: the base64 form of the basic_auth password.
  const b64 = Buffer.from(`svc:${S.basic}`).toString('base64');
  const checkpoint = path.join(dir, `cp-${S.store}.json`);
  for (const [name, route] of [
    ['400 (rejected, dead-lettered)', '/fail'],
    ['503 until retries run out', '/flaky'],
  ])
    it(`${name}: no password, Authorization, header value or checkpoint name in stderr, JSON lines or the dead-letter file`, async () => {
      const dl = path.join(dir, `dl-${route.slice(1)}.ndjson`);
      const outputs: string[] = [];
      for (const progress of ['plain', 'json']) {
        rmSync(dl, { force: true });
        rmSync(checkpoint, { force: true });
        const r = await bridge(
          ['copy', `${PG_URL.replace('postgres@', `postgres:${S.url}@`)}?table=t_sec&cursor_column=id&cursor_id=peer&checkpoint_store=${encodeURIComponent(`file://${checkpoint}`)}`, `${peerUrl}${route}?basic_auth=${basic}&custom_headers=${headers}`, '--dead-letter', `file://${dl}`, '--max-retries', '1', '--progress', progress],
          { env: { PGPASSWORD: S.field } },
        );
        outputs.push(r.stdout, r.stderr, existsSync(dl) ? readFileSync(dl, 'utf8') : '');
        // Dead-lettered rejections end the run normally (decisions §8); retries running out do not.
        if (route === '/fail') expect(r.exitCode, r.stderr).toBe(0);
        else expect(r.exitCode).not.toBe(0);
      }
      const all = outputs.join('\n');
      if (route === '/fail') expect(all).toContain('rejected; you sent'); // the peer's body did reach the output, scrubbed
      for (const secret of [...ALL, b64, path.basename(checkpoint)]) expect(all).not.toContain(secret);
      record({ scenario: `secrets: hostile peer echoing headers, ${name}`, runs: 2, lost: 0, duplicates: 0, outcome: 'no secret in stdout, stderr, JSON lines or dead letters' });
    });
});

describe('SQL injection through identifiers', () => {
  it('table, column and key names with quotes, semicolons or comments are refused; unicode names are quoted and work', async () => {
    for (const bad of [`t"x`, `t;DROP TABLE t_sec`, `t' OR '1'='1`, 't--', 't/*x*/', 'a.b.c']) {
      for (const args of [
        ['copy', `${PG_URL}?table=${encodeURIComponent(bad)}`, '-'],
        ['copy', `${PG_URL}?table=t_sec&cursor_column=${encodeURIComponent(bad)}`, '-'],
        ['copy', '-', `${PG_URL}?table=t_sec&columns=auto&key=${encodeURIComponent(bad)}`],
        ['copy', `${MYSQL_URL}?table=${encodeURIComponent(bad)}`, '-'],
      ]) {
        const r = await bridge(args, { input: '' });
        expect(r.exitCode).toBe(2);
      }
    }
    expect(await pg.rows("SELECT to_regclass('t_sec') IS NOT NULL AS ok")).toEqual([{ ok: true }]);
    await pg.exec('DROP TABLE IF EXISTS "tablé_ünï"; CREATE TABLE "tablé_ünï" ("ïd" int PRIMARY KEY, "vâl" text)');
    const ok = await bridge(['copy', '-', `${PG_URL}?table=${encodeURIComponent('tablé_ünï')}&columns=auto&key=${encodeURIComponent('ïd')}`], { input: '{"ïd":1,"vâl":"x"}\n' });
    expect(ok.exitCode).toBe(0);
    expect(await pg.rows('SELECT * FROM "tablé_ünï"')).toEqual([{ ïd: 1, vâl: 'x' }]);
    record({ scenario: 'SQL injection: hostile table/column/key names', runs: 24, lost: 0, duplicates: 0, outcome: 'all refused (exit 2); unicode names quoted and written' });
  });
});
