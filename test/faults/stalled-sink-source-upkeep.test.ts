import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnBridge, waitFor } from '../helpers/bridge.js';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';
import { record } from './report.js';

/**
 * A copy reads a table one long key range per query (PostgreSQL COPY TO, a MariaDB streamed
 * SELECT), and the server holds a snapshot (PostgreSQL: vacuum waits for it) or a read view
 * (InnoDB: purge waits for it) until the range's query ends. When the sink stalls for minutes (an
 * endpoint that does not answer), the range must let go of its query after 30 s rather than hold
 * the source's upkeep back for the whole stall; the copy then goes on from the last row read.
 */
const N = 20_000;
const dbs: TestDb[] = [];
afterAll(async () => {
  for (const d of dbs) await d.exec('DROP TABLE IF EXISTS st_wide').catch(() => {});
  for (const d of dbs) await d.close();
});

const open = {
  postgres: async () => {
    const d = await postgres();
    await d.exec('DROP TABLE IF EXISTS st_wide');
    await d.exec('CREATE TABLE st_wide (id int PRIMARY KEY, pad text NOT NULL)');
    await d.exec(`INSERT INTO st_wide SELECT g, repeat(chr(65 + g % 26), 2000) FROM generate_series(1, ${N}) g`);
    // The range's query, and whether it holds a snapshot.
    const held = async () => (await d.rows("SELECT backend_xmin IS NOT NULL AS snap FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%st_wide%' AND state = 'active'")).length > 0;
    return { d, held };
  },
  mariadb: async () => {
    const d = await mysqlLike('mariadb');
    await d.exec('DROP TABLE IF EXISTS st_wide');
    await d.exec('CREATE TABLE st_wide (id int PRIMARY KEY, pad varchar(2100) NOT NULL)');
    await d.exec(`INSERT INTO st_wide SELECT seq, REPEAT(CHAR(65 + seq % 26), 2000) FROM seq_1_to_${N}`);
    const held = async () => (await d.rows("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT%FROM `st_wide`%' AND ID <> CONNECTION_ID()")).length > 0;
    return { d, held };
  },
};

// The two kinds at once: each waits out the 30 s, on its own server, table and endpoint.
describe.concurrent('a sink that stalls does not hold back the source', () => {
  for (const kind of ['postgres', 'mariadb'] as const)
    it(`${kind}: the range lets go of its query within ~30 s of the stall; the copy then ends with every row once`, async () => {
      const { d, held } = await open[kind]();
      dbs.push(d);
      const seen: number[] = [];
      let changed = 0;
      let hold: (() => void) | undefined;
      let stalledAt = 0;
      const server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const row = JSON.parse(body) as { id: number; pad: string };
          if (row.pad !== String.fromCharCode(65 + (row.id % 26)).repeat(2000)) changed++;
          seen.push(row.id);
          if (seen.length === 1000) {
            stalledAt = Date.now();
            hold = () => res.end('{}');
          } else res.end('{}');
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in?request_timeout_ms=120000`;
      try {
        const p = spawnBridge(['copy', d.url('st_wide'), url, '--batch-size', '100', '--progress', 'none']);
        await waitFor(async () => hold !== undefined, 60_000, 50);
        expect(await held()).toBe(true);
        await waitFor(async () => !(await held()), 45_000, 250);
        const released = (Date.now() - stalledAt) / 1000;
        expect(released).toBeGreaterThan(20);
        expect(released).toBeLessThan(40);
        const before = seen.length;
        hold!();
        const r = await p;
        expect(r.exitCode, String(r.stderr)).toBe(0);
        record({ scenario: `stalled sink: ${kind} range query let go after ${released.toFixed(1)} s of a stall`, runs: 1, lost: N - new Set(seen).size, duplicates: seen.length - new Set(seen).size, outcome: `exit ${r.exitCode}; ${before} rows before the stall ended` });
        expect(before).toBeLessThan(N / 2);
        expect(changed).toBe(0);
        expect(seen.length).toBe(N);
        expect(new Set(seen).size).toBe(N);
      } finally {
        hold?.();
        server.close();
      }
    });
});
