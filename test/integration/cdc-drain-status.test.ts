import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * `bridge copy` of a slot drains it to the WAL end of its start. While the server decoded one
 * large transaction (nothing to deliver yet), each wait asked the server for its WAL end, the
 * server answered at once, and the answer woke the wait to ask again: status messages and
 * keepalives back and forth at the speed of the loopback for the whole decoding (a 1M-row UPDATE
 * into a mirror: 0.7 s of bridge's CPU in socket writes, and the walsender's time taken from
 * decoding). Counted here on the wire, through a TCP relay that adds up what bridge sends.
 */
let pg: TestDb;
const SLOT = 'drain_status';
const target = new URL(PG_URL);
let relay: Server;
let sent = 0;

beforeAll(async () => {
  pg = await postgres();
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${SLOT}'`);
  await pg.exec(`DROP PUBLICATION IF EXISTS ${SLOT}; DROP TABLE IF EXISTS drain_src`);
  await pg.exec('CREATE TABLE drain_src (id int PRIMARY KEY, n int, s text); INSERT INTO drain_src SELECT g, g, md5(g::text) FROM generate_series(1, 300000) g');
  relay = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    client.on('data', (d) => (sent += d.length));
    client.pipe(server).pipe(client);
    const end = (): void => {
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  relay.close();
  await pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${SLOT}' AND NOT active`);
  await pg.exec(`DROP PUBLICATION IF EXISTS ${SLOT}; DROP TABLE IF EXISTS drain_src`);
  await pg.close();
}, 60_000);

describe('draining a slot while the server decodes a large transaction', () => {
  it('asks for the WAL end a few times a second, not at every answer; every change arrives', async () => {
    const via = new URL(PG_URL.replace(/^postgres(ql)?:/, 'postgres+cdc:'));
    via.port = String((relay.address() as AddressInfo).port);
    const src = `${via.toString().replace(/\?.*$/, '')}?tables=drain_src&slot_name=${SLOT}&snapshot=never`;
    const dir = tempDir();
    const first = await bridge(['copy', src, `file://${path.join(dir, 'none.ndjson')}`, '-q']);
    expect({ code: first.exitCode, err: first.stderr }).toEqual({ code: 0, err: '' });
    await pg.exec('UPDATE drain_src SET n = n + 1');
    sent = 0;
    const started = Date.now();
    const r = await bridge(['copy', src, `file://${path.join(dir, 'changes.ndjson')}`, '-q']);
    const seconds = (Date.now() - started) / 1000;
    expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: '' });
    expect(readFileSync(path.join(dir, 'changes.ndjson'), 'utf8').trim().split('\n')).toHaveLength(300000);
    // Start-up queries and a status every 100 ms or so come to a few KB a second; the back and
    // forth was hundreds of KB (a 39-byte status per round trip).
    expect(sent / seconds).toBeLessThan(8_000);
  }, 120_000);
});
