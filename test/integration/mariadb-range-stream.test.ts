import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';

/**
 * A MariaDB/MySQL table is read one key range (262,144 rows) per SELECT whose rows the server
 * streams, taken a batch at a time, instead of one SELECT per batch. The ranges must join without a
 * row lost or doubled (a composite key, batches that do not divide a range), and a range whose
 * connection is killed part-way must go on from the last row read.
 */
let maria: TestDb;
let pg: TestDb;
const MANY = 300_000;

beforeAll(async () => {
  maria = await mysqlLike('mariadb');
  pg = await postgres();
  await maria.exec('DROP TABLE IF EXISTS rs_pairs, rs_wide, rs_slow');
  // Keys in an order unlike the insert order: a (n mod 7), b (text, n's digits reversed).
  await maria.exec('CREATE TABLE rs_pairs (a int NOT NULL, b varchar(12) NOT NULL, n int NOT NULL, PRIMARY KEY (a, b))');
  await maria.exec(`INSERT INTO rs_pairs SELECT seq % 7, REVERSE(LPAD(seq, 7, '0')), seq FROM seq_1_to_${MANY}`);
  await pg.exec('DROP TABLE IF EXISTS rs_pairs, rs_wide');
});
afterAll(async () => {
  await maria.exec('DROP TABLE IF EXISTS rs_pairs, rs_wide, rs_slow');
  await maria.exec("DROP USER IF EXISTS 'rs_limited'@'%'");
  await pg.exec('DROP TABLE IF EXISTS rs_pairs, rs_wide');
  await maria.close();
  await pg.close();
});

/** An HTTP endpoint that takes one row a request, answered after `ms`; `seen` gets each row's id. */
async function slowSink(ms: number, seen: number[]): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push((JSON.parse(body) as { id: number }).id);
      setTimeout(() => res.end('{}'), ms);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, close: () => server.close() };
}

describe('a MariaDB table read in streamed key ranges', () => {
  it('longer than one range, by a composite key, in batches that do not divide it: every row once', async () => {
    const plan = await bridge(['copy', maria.url('rs_pairs'), pg.url('rs_pairs', 'columns=auto&auto_create_table=true'), '--dry-run']);
    expect(String(plan.stdout)).toMatch(/source query: SELECT \* FROM `rs_pairs` WHERE \(`a`, `b`\) > \(<last key>\) ORDER BY `a`, `b` LIMIT 262144, each range one streamed query/);
    const r = await bridge(['copy', maria.url('rs_pairs'), pg.url('rs_pairs', 'columns=auto&auto_create_table=true'), '--batch-size', '1000', '--progress', 'plain']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const got = await pg.rows('SELECT count(*)::int AS rows, count(DISTINCT n)::int AS distinct_n, min(n) AS lo, max(n) AS hi, sum(n)::text AS total FROM rs_pairs');
    expect(got).toEqual([{ rows: MANY, distinct_n: MANY, lo: 1, hi: MANY, total: String((MANY * (MANY + 1)) / 2) }]);
    // Each row whole: its key still derived from its n.
    expect(await pg.rows("SELECT count(*)::int AS wrong FROM rs_pairs WHERE a <> n % 7 OR b <> reverse(lpad(n::text, 7, '0'))")).toEqual([{ wrong: 0 }]);
  });

  it('its connection killed part-way: the copy goes on from the last row read, nothing lost or doubled', async () => {
    const N = 4000;
    // 2 KB rows: the range (8 MB) is more than the sockets hold, so the server is still sending when killed.
    await maria.exec('CREATE TABLE rs_wide (id int PRIMARY KEY, pad varchar(2100) NOT NULL)');
    await maria.exec(`INSERT INTO rs_wide SELECT seq, REPEAT(CHAR(65 + seq % 26), 2000) FROM seq_1_to_${N}`);
    const seen: number[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const row = JSON.parse(body) as { id: number; pad: string };
        if (row.pad !== String.fromCharCode(65 + (row.id % 26)).repeat(2000)) throw new Error(`row ${row.id} arrived changed`);
        seen.push(row.id);
        setTimeout(() => res.end('{}'), 2);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    try {
      const p = spawnBridge(['copy', maria.url('rs_wide'), url, '--batch-size', '100', '--progress', 'plain', '--progress-interval', '200']);
      const query = async (): Promise<number | undefined> => {
        const rows = await maria.rows("SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT%FROM `rs_wide`%LIMIT 262144'");
        return rows.length ? Number(rows[0]!.id) : undefined;
      };
      let victim: number | undefined;
      while (victim === undefined || seen.length < 500) {
        victim ??= await query();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen.length).toBeLessThan(N / 2);
      await maria.exec(`KILL CONNECTION ${victim}`);
      const r = await p;
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(String(r.stderr)).toMatch(/retry/i);
      expect(seen.length).toBe(N);
      expect(new Set(seen).size).toBe(N);
    } finally {
      server.close();
    }
  });

  it('a server that limits how long a statement runs (max_statement_time of the user) does not cut a range off', async () => {
    const N = 10_000;
    await maria.exec('CREATE TABLE rs_slow (id int PRIMARY KEY, pad varchar(2100) NOT NULL)');
    await maria.exec(`INSERT INTO rs_slow SELECT seq, REPEAT('x', 2000) FROM seq_1_to_${N}`);
    await maria.exec("CREATE USER 'rs_limited'@'%' WITH MAX_STATEMENT_TIME 0.5");
    await maria.exec("GRANT SELECT ON rs_slow TO 'rs_limited'@'%'");
    const seen: number[] = [];
    const sink = await slowSink(2, seen);
    try {
      // Seconds of reading 20 MB, more than the sockets hold: the one SELECT of the range outlives the user's 0.5 s.
      const src = maria.url('rs_slow').replace(/\/\/[^@/]*@/, '//rs_limited@');
      const r = await bridge(['copy', src, sink.url, '--batch-size', '100', '--progress', 'plain']);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      expect(String(r.stderr)).not.toMatch(/retry/i);
      expect(seen.length).toBe(N);
      expect(new Set(seen).size).toBe(N);
    } finally {
      sink.close();
    }
  });
});
