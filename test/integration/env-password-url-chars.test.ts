import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, parseLines, tempDir } from '../helpers/bridge.js';
import { mysqlLike, type TestDb } from '../helpers/databases.js';

/**
 * A password kept in the environment, as the docs advise (`mariadb://loader:${SHOP_PASSWORD}@db/shop`),
 * holding characters a URL gives meaning to, as generated passwords do: with `p@ss:w/rd#1?%&=` the
 * run failed with exit 2, "a query key is not valid percent-encoding", and a value without `%`
 * would have been cut at its `@`, `/` or `?` and sent to another host or user. A variable filled
 * into the user, the password or a query value is now that text exactly (percent-encoded for the
 * URL); a variable holding a whole URL is still taken as a URL.
 */
const dir = tempDir();
const PASSWORD = 'p@ss:w/rd#1?%&=';
let maria: TestDb;

beforeAll(async () => {
  maria = await mysqlLike('mariadb');
  await maria.exec("DROP USER IF EXISTS 'bridge_pw'@'%'");
  await maria.exec("DROP USER IF EXISTS 'bridge_pw'@'localhost'");
  for (const host of ['%', 'localhost']) {
    await maria.exec(`CREATE USER 'bridge_pw'@'${host}' IDENTIFIED BY '${PASSWORD}'`);
    await maria.exec(`GRANT SELECT ON test.* TO 'bridge_pw'@'${host}'`);
  }
  await maria.exec('DROP TABLE IF EXISTS pw_src; CREATE TABLE pw_src (id int PRIMARY KEY, a text); INSERT INTO pw_src VALUES (1, \'one\'), (2, \'two\')');
});
afterAll(async () => {
  await maria.exec("DROP USER IF EXISTS 'bridge_pw'@'%'");
  await maria.exec("DROP USER IF EXISTS 'bridge_pw'@'localhost'");
  await maria.exec('DROP TABLE IF EXISTS pw_src');
  await maria.close();
});

const rows = [
  { id: 1, a: 'one' },
  { id: 2, a: 'two' },
];

describe('a password from the environment with characters a URL gives meaning to', () => {
  it('in the URL of a route file connection (user:${PW}@host): the copy connects and says no secret', async () => {
    const out = path.join(dir, 'file.ndjson');
    const file = path.join(dir, 'routes.yaml');
    writeFileSync(file, `connections:\n  shop: mariadb://bridge_pw:\${PW}@127.0.0.1:3306/test\nroutes:\n  one:\n    source: shop?table=pw_src\n    sink: file://${out}\n`);
    const r = await bridge(['run', file, '--progress', 'none'], { env: { PW: PASSWORD } });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(parseLines(readFileSync(out, 'utf8'))).toEqual(rows);
    expect(String(r.stderr)).not.toContain('p@ss');
  });

  it('in a command-line URL, in the userinfo and as the password field', async () => {
    for (const [name, src] of [
      ['userinfo', 'mariadb://bridge_pw:${PW}@127.0.0.1:3306/test?table=pw_src'],
      ['field', 'mariadb://bridge_pw@127.0.0.1:3306/test?password=${PW}&table=pw_src'],
    ] as const) {
      const out = path.join(dir, `${name}.ndjson`);
      const r = await bridge(['copy', src, `file://${out}`, '--progress', 'none'], { env: { PW: PASSWORD } });
      expect(r.exitCode, `${name}: ${String(r.stderr)}`).toBe(0);
      expect(parseLines(readFileSync(out, 'utf8'))).toEqual(rows);
    }
  });

  it('a variable holding the whole URL (its password percent-encoded by the user) is taken as that URL', async () => {
    const out = path.join(dir, 'whole.ndjson');
    const url = `mariadb://bridge_pw:${encodeURIComponent(PASSWORD)}@127.0.0.1:3306/test?table=pw_src`;
    const r = await bridge(['copy', '${SHOP_URL}', `file://${out}`, '--progress', 'none'], { env: { SHOP_URL: url } });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(parseLines(readFileSync(out, 'utf8'))).toEqual(rows);
  });
});
