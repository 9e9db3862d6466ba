import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge } from '../helpers/bridge.js';
import { makeCerts, type Certs } from '../helpers/certs.js';
import { postgres, type TestDb } from '../helpers/databases.js';
import { record } from './report.js';

/**
 * Issue 7, TLS to PostgreSQL: the local server is given a certificate signed by a test CA
 * (ALTER SYSTEM + reload), then bridge connects with tls.required and each CA choice.
 */
let pg: TestDb;
let certs: Certs;
let dataDir = '';
beforeAll(async () => {
  pg = await postgres();
  certs = makeCerts();
  dataDir = String((await pg.rows('SHOW data_directory'))[0]!.data_directory);
  for (const [from, to] of [
    [certs.serverCert, 'bridge-test-server.crt'],
    [certs.serverKey, 'bridge-test-server.key'],
  ] as const) {
    copyFileSync(from, `${dataDir}/${to}`);
    execFileSync('chown', ['postgres:postgres', `${dataDir}/${to}`]);
    chmodSync(`${dataDir}/${to}`, 0o600);
  }
  await pg.exec("ALTER SYSTEM SET ssl_cert_file = 'bridge-test-server.crt'");
  await pg.exec("ALTER SYSTEM SET ssl_key_file = 'bridge-test-server.key'");
  await pg.exec('ALTER SYSTEM SET ssl = on');
  await pg.exec('SELECT pg_reload_conf()');
  await new Promise((r) => setTimeout(r, 500));
  await pg.exec('DROP TABLE IF EXISTS t_tls; CREATE TABLE t_tls (id int PRIMARY KEY); INSERT INTO t_tls VALUES (1), (2)');
});
afterAll(async () => {
  await pg.exec('ALTER SYSTEM RESET ssl');
  await pg.exec('ALTER SYSTEM RESET ssl_cert_file');
  await pg.exec('ALTER SYSTEM RESET ssl_key_file');
  await pg.exec('SELECT pg_reload_conf()');
  await pg.close();
});

const url = (tls: object): string => `postgres://postgres@127.0.0.1:5432/test?table=t_tls&application_name=bridge_tls_test&tls=${encodeURIComponent(JSON.stringify(tls))}`;

describe('TLS to PostgreSQL', () => {
  it('tls.required with the right ca_file verifies the server and connects over TLS', async () => {
    const r = await bridge(['copy', url({ required: true, ca_file: certs.ca }), '-', '-q']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('{"id":1}\n{"id":2}');
    record({ scenario: 'TLS: PostgreSQL with the right CA', runs: 1, lost: 0, duplicates: 0, outcome: 'verified and connected' });
  });

  it('a wrong CA fails with a clear error (exit 3)', async () => {
    const r = await bridge(['copy', url({ required: true, ca_file: certs.otherCa }), '-']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/cannot connect to PostgreSQL: .*(self[- ]signed certificate|unable to verify|certificate)/i);
    record({ scenario: 'TLS: PostgreSQL with a wrong CA', runs: 1, lost: 0, duplicates: 0, outcome: 'refused, exit 3, certificate error named' });
  });

  it('accept_invalid_certs connects without verification and warns', async () => {
    const r = await bridge(['copy', url({ required: true, accept_invalid_certs: true }), '-']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/tls.accept_invalid_certs is set: the server certificate is not verified \(insecure\)/);
    record({ scenario: 'TLS: PostgreSQL with accept_invalid_certs', runs: 1, lost: 0, duplicates: 0, outcome: 'connected with a warning' });
  });
});
