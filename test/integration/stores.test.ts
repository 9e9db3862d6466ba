import { BlobServiceClient } from '@azure/storage-blob';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, readWholeLines, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { MYSQL_URL, PG_URL, mysqlLike, postgres, sqlite, type TestDb } from '../helpers/databases.js';
import { startAzurite, startS3 } from '../helpers/object-stores.js';

/**
 * Issue 4: every checkpoint_store that runs on this machine, under a SIGKILL mid-tail. The source
 * is a SQLite table of 5k rows read in batches of 100.
 */
const dir = tempDir();
const N = 5000;
let src: TestDb;
let pg: TestDb;
let my: TestDb;
let s3: Awaited<ReturnType<typeof startS3>>;
let az: Awaited<ReturnType<typeof startAzurite>>;
const env = (): Record<string, string> => ({ ...s3.env, ...az.env });

beforeAll(async () => {
  src = sqlite(path.join(dir, 'stores.db'));
  await src.exec(`CREATE TABLE t_store (id INTEGER PRIMARY KEY, v TEXT)`);
  pg = await postgres();
  my = await mysqlLike('mariadb');
  await pg.exec('DROP TABLE IF EXISTS ext_cursors; DROP TABLE IF EXISTS bridge_cursors_t_store');
  await my.exec('DROP TABLE IF EXISTS ext_cursors; DROP TABLE IF EXISTS bridge_cursors_t_store');
  s3 = await startS3(['bridge-state']);
  az = await startAzurite();
});
afterAll(async () => {
  await src.close();
  await pg.close();
  await my.close();
  await s3?.stop();
  await az?.stop();
});

const ids = (file: string): number[] => (readWholeLines(file) as { id: number }[]).map((r) => r.id);

/** Reads the stored text back with each store's own client, not bridge's. */
const readers: Record<string, (cursorId: string) => Promise<string>> = {
  default: async (id) => String((await src.rows(`SELECT last_value FROM bridge_cursors_t_store WHERE cursor_id = '${id}'`))[0]!.last_value),
  bare: async (id) => String((await src.rows(`SELECT last_value FROM my_cursors WHERE cursor_id = '${id}'`))[0]!.last_value),
  slash: async (id) => String((await src.rows(`SELECT last_value FROM slash_cursors WHERE cursor_id = '${id}'`))[0]!.last_value),
  file: async (id) => JSON.stringify((JSON.parse(readFileSync(path.join(dir, 'cursors.json'), 'utf8')) as Record<string, unknown>)[id]),
  postgres: async (id) => String((await pg.rows(`SELECT last_value FROM ext_cursors WHERE cursor_id = '${id}'`))[0]!.last_value),
  mariadb: async (id) => String((await my.rows(`SELECT last_value FROM bridge_cursors_t_store WHERE cursor_id = '${id}'`))[0]!.last_value),
  s3: async (id) => {
    // Positions alternate between two objects (a torn PUT loses one); the newer is the position.
    const c = new S3Client({ endpoint: s3.env.AWS_ENDPOINT_URL_S3, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const texts = await Promise.all(
      [`prod/cursors/${id}.json`, `prod/cursors/${encodeURIComponent(`${id}~b`)}.json`].map((Key) =>
        c.send(new GetObjectCommand({ Bucket: 'bridge-state', Key })).then((r) => r.Body!.transformToString(), () => '{}'),
      ),
    );
    return texts.map((t) => JSON.parse(t) as { updated_at_ms?: number }).sort((x, y) => (y.updated_at_ms ?? 0) - (x.updated_at_ms ?? 0)).map((x) => JSON.stringify(x))[0]!;
  },
  az: async (id) => (await BlobServiceClient.fromConnectionString(az.env.AZURE_STORAGE_CONNECTION_STRING!).getContainerClient('state').getBlockBlobClient(`prod/${id}.json`).downloadToBuffer()).toString(),
  abfs: async (id) => (await BlobServiceClient.fromConnectionString(az.env.AZURE_STORAGE_CONNECTION_STRING!).getContainerClient('lake').getBlockBlobClient(`bridge/${id}.json`).downloadToBuffer()).toString(),
};

const STORES: [name: string, store: string | undefined][] = [
  ['default', undefined],
  ['bare', 'my_cursors'],
  ['slash', '/slash_cursors'],
  ['file', `file://${path.join(dir, 'cursors.json')}`],
  ['postgres', `${PG_URL}/ext_cursors`],
  ['mariadb', MYSQL_URL.replace('mysql://', 'mariadb://')],
  ['s3', 's3://bridge-state/prod/cursors'],
  ['az', 'az://state/prod'],
  ['abfs', 'abfs://lake@devstoreaccount1.dfs.core.windows.net/bridge'],
];

describe('checkpoint stores under SIGKILL', () => {
  for (const [name, store] of STORES) {
    it(`${name}: all 5k rows arrive after a kill at a random point and a restart; the envelope is decisions §3's`, async () => {
      const out = path.join(dir, `out-${name}.ndjson`);
      const cursorId = `job-${name}`;
      const q = `cursor_id=${cursorId}&polling_interval_ms=10${store ? `&checkpoint_store=${encodeURIComponent(store)}` : ''}`;
      const args = ['tail', src.url('t_store', q), `file://${out}`, '--cursor-column', 'id', '--batch-size', '100', '-q'];
      await src.exec('DELETE FROM t_store');
      // Rows keep arriving while the tail runs, so the kill lands mid-stream.
      const producer = (async () => {
        for (let i = 0; i < N; i += 100) {
          await src.exec(`WITH RECURSIVE g(i) AS (SELECT ${i + 1} UNION ALL SELECT i + 1 FROM g WHERE i < ${i + 100}) INSERT INTO t_store SELECT i, 'row ' || i FROM g`);
          await new Promise((r) => setTimeout(r, 15));
        }
      })();
      const killAt = 300 + Math.floor(Math.random() * 2500);
      const first = spawnBridge(args, { env: env() });
      await waitFor(async () => ids(out).length >= killAt, 60_000, 10);
      first.kill('SIGKILL');
      await first;
      const second = spawnBridge(args, { env: env() });
      let err = '';
      second.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      await producer;
      await waitFor(async () => new Set(ids(out)).size >= N || (second.exitCode !== null ? Promise.reject(new Error(`the restarted tail exited ${second.exitCode}: ${err}`)) : false), 50_000).catch((e: Error) => {
        throw new Error(`${e.message}; seen ${new Set(ids(out)).size} of ${N}; stderr: ${err}`);
      });
      second.kill('SIGTERM');
      const r = await second;
      expect({ code: r.exitCode, err: String(r.stderr) }).toEqual({ code: 0, err: '' });
      const got = ids(out);
      expect(new Set(got).size).toBe(N);
      expect(got.length - N).toBeLessThanOrEqual(100); // at most the one batch written but not yet checkpointed
      const env2 = JSON.parse(await readers[name]!(cursorId)) as Record<string, unknown>;
      expect(env2).toMatchObject({ bridge_checkpoint: 1, source: 'sqlite:t_store:id', value: `int:${N}` });
      expect(typeof env2.updated_at_ms).toBe('number');
    });
  }
});

describe('one cursor_id, one writer', () => {
  for (const [name, store] of [
    ['default', undefined],
    ['file', `file://${path.join(dir, 'lease.json')}`],
    ['s3', 's3://bridge-state/lease'],
  ] as const) {
    it(`${name}: a second tail on the same cursor_id refuses to start, naming the holder`, async () => {
      const q = `cursor_id=lease-${name}${store ? `&checkpoint_store=${encodeURIComponent(store)}` : ''}`;
      const args = ['tail', src.url('t_store', q), 'file:///dev/null', '--cursor-column', 'id', '--progress', 'none'];
      const first = spawnBridge(args, { env: env() });
      await new Promise((r) => setTimeout(r, 1500));
      const second = await bridge(args, { env: env() });
      expect(second.exitCode).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`cursor_id lease-${name} is in use by another bridge \\(.*, pid ${first.pid}\\)`));
      first.kill('SIGTERM');
      expect((await first).exitCode).toBe(0);
      // Released on a clean stop: the next one starts.
      const third = spawnBridge(args, { env: env() });
      await new Promise((r) => setTimeout(r, 1500));
      third.kill('SIGTERM');
      expect((await third).exitCode).toBe(0);
    });
  }

  it('credentials in an object-store URL are refused and not printed', async () => {
    const r = await bridge(['copy', src.url('t_store', 'cursor_id=x&checkpoint_store=s3://AKIAEXAMPLE:VerySecretKey123@bucket/p'), '-', '--cursor-column', 'id']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/takes its credentials from the environment/);
    expect(r.stderr).not.toContain('VerySecretKey123');
  });
});

describe.skipIf(!process.env.BRIDGE_TEST_GCS_ENDPOINT)('gs:// (runs when BRIDGE_TEST_GCS_ENDPOINT names a GCS emulator)', () => {
  it('keeps the position in a bucket', async () => {
    const out = path.join(dir, 'out-gcs.ndjson');
    const r = await bridge(['copy', src.url('t_store', 'cursor_id=g1&checkpoint_store=gs://bridge-state/prod'), `file://${out}`, '--cursor-column', 'id', '-q'], {
      env: { STORAGE_EMULATOR_HOST: process.env.BRIDGE_TEST_GCS_ENDPOINT! },
    });
    expect(r.exitCode).toBe(0);
    expect(ids(out)).toHaveLength(N);
  });
});

describe.skipIf(!process.env.BRIDGE_TEST_MONGO_URL)('mongodb:// (runs when BRIDGE_TEST_MONGO_URL names a server)', () => {
  it('keeps the position in a collection', async () => {
    const out = path.join(dir, 'out-mongo.ndjson');
    const store = `${process.env.BRIDGE_TEST_MONGO_URL!.replace(/\/$/, '')}/bridge_test/cursors`;
    const r = await bridge(['copy', src.url('t_store', `cursor_id=m1&checkpoint_store=${encodeURIComponent(store)}`), `file://${out}`, '--cursor-column', 'id', '-q']);
    expect(r.exitCode).toBe(0);
    expect(ids(out)).toHaveLength(N);
  });
});
