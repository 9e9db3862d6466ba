import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, started } from '../helpers/bridge.js';
import { PG_URL, postgres, type TestDb } from '../helpers/databases.js';

/**
 * --partition k/N: N processes share one table. Four tails run at once, each killed with SIGKILL
 * twice at random moments and restarted from its own checkpoint, while a writer keeps inserting:
 * in the end every row is delivered, no row belongs to two parts, and the duplicates (rows a killed
 * process delivered but had not yet checkpointed) stay within what was in flight at each kill.
 */
const N = 4;
const BATCH = 200;

describe('partition k/N: four processes, one table', () => {
  let pg: TestDb;
  beforeAll(async () => {
    pg = await postgres();
    await pg.exec(`DROP TABLE IF EXISTS part_src, part_dst, bridge_cursors_part_src;
      CREATE TABLE part_src (id int PRIMARY KEY, k text NOT NULL, v text);
      INSERT INTO part_src SELECT g, 'key-' || g, repeat('v', g % 50) FROM generate_series(1, 30000) g;
      CREATE TABLE part_dst (id int, k text, v text)`);
  });
  afterAll(async () => {
    await pg.close();
  });

  it('copy: the N parts are disjoint and their union is the table (a primary key on the target would refuse an overlap)', async () => {
    await pg.exec('DROP TABLE IF EXISTS part_copy; CREATE TABLE part_copy (id int PRIMARY KEY, k text, v text)');
    const counts: number[] = [];
    for (let k = 0; k < N; k++) {
      const r = await bridge(['copy', `${PG_URL}?table=part_src`, `${PG_URL}?table=part_copy&columns=auto`, '--partition', `${k}/${N}`, '--progress', 'none']);
      expect({ k, code: r.exitCode }).toEqual({ k, code: 0 });
      counts.push(Number(/done: ([\d,]+) rows/.exec(r.stderr)![1]!.replace(/,/g, '')));
    }
    expect(counts.reduce((a, b) => a + b, 0)).toBe(30000);
    for (const c of counts) expect(c).toBeGreaterThan(30000 / N / 2);
    expect(await pg.rows('SELECT COUNT(*)::int AS n, SUM(id)::bigint::text AS s FROM part_copy')).toEqual([{ n: 30000, s: String((30000 * 30001) / 2) }]);
  }, 60_000);

  it('tail: four processes with SIGKILLs and restarts deliver every row; duplicates stay within the batches in flight', async () => {
    const args = (k: number): string[] => ['tail', `${PG_URL}?table=part_src&cursor_column=id&cursor_id=job`, `${PG_URL}?table=part_dst&columns=auto`, '--partition', `${k}/${N}`, '--batch-size', String(BATCH), '--progress', 'none'];
    // More rows arrive while the parts are read.
    let next = 30001;
    const writer = setInterval(() => {
      const from = next;
      next += 50;
      void pg.exec(`INSERT INTO part_src SELECT g, 'key-' || g, 'late' FROM generate_series(${from}, ${from + 49}) g`);
    }, 20);
    let kills = 0;
    await Promise.all(
      Array.from({ length: N }, async (_, k) => {
        for (let round = 0; round < 2; round++) {
          const p = spawnBridge(args(k));
          await started(p);
          await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 600)));
          p.kill('SIGKILL');
          await p;
          kills++;
        }
      }),
    );
    clearInterval(writer);
    await new Promise((r) => setTimeout(r, 200));
    const total = next - 1;
    // A last run of each part, to the end: every row is there.
    await Promise.all(
      Array.from({ length: N }, async (_, k) => {
        const r = await bridge([...args(k), '--exit-when-drained']);
        expect({ k, code: r.exitCode, err: r.stderr.split('\n').filter((l) => / error: /.test(l)) }).toEqual({ k, code: 0, err: [] });
      }),
    );
    const [got] = await pg.rows(`SELECT COUNT(DISTINCT id)::int AS distinct_ids, COUNT(*)::int AS all_rows, (SELECT COUNT(*)::int FROM part_src) AS source FROM part_dst`);
    expect(got!.source).toBe(total);
    expect(got!.distinct_ids).toBe(total);
    const duplicates = (got!.all_rows as number) - total;
    // At a kill, at most the batches in flight (read-ahead 2 + the one being written) were delivered without their checkpoint.
    expect(kills).toBe(2 * N);
    expect(duplicates).toBeLessThanOrEqual(kills * 3 * BATCH);
    // Every process kept its own position.
    expect((await pg.rows("SELECT cursor_id FROM bridge_cursors_part_src ORDER BY 1")).map((r) => r.cursor_id)).toEqual(Array.from({ length: N }, (_, k) => `job.part${k}of${N}`));
  }, 120_000);

  it('--parallel N on one table: N connections, each a key range (integer key) or a hash part (other keys); the union is the table', async () => {
    await pg.exec(`DROP TABLE IF EXISTS par_copy, par_text, par_text_copy; CREATE TABLE par_copy (id int PRIMARY KEY, k text, v text);
      CREATE TABLE par_text (k text PRIMARY KEY, n int); INSERT INTO par_text SELECT 'k' || g, g FROM generate_series(1, 5000) g;
      CREATE TABLE par_text_copy (k text PRIMARY KEY, n int)`);
    const r = await bridge(['copy', `${PG_URL}?table=part_src`, `${PG_URL}?table=par_copy&columns=auto`, '--parallel', '3', '--progress', 'plain']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr.match(/^bridge copy \[part_src\[(\d*)\.\.(\d*)\]\]: done: /gm)).toHaveLength(3);
    expect(r.stderr).toMatch(/^bridge copy: 3 parts: 3 done; /m);
    const [src] = await pg.rows('SELECT COUNT(*)::int AS n, SUM(id)::bigint::text AS s FROM part_src');
    expect(await pg.rows('SELECT COUNT(*)::int AS n, SUM(id)::bigint::text AS s FROM par_copy')).toEqual([src]);
    const t = await bridge(['copy', `${PG_URL}?table=par_text`, `${PG_URL}?table=par_text_copy&columns=auto`, '--parallel', '2', '--progress', 'plain']);
    expect(t.exitCode).toBe(0);
    expect(t.stderr).toMatch(/\[par_text#0\/2\]: done: /);
    expect(await pg.rows('SELECT COUNT(*)::int AS n, SUM(n)::int AS s FROM par_text_copy')).toEqual([{ n: 5000, s: 12502500 }]);
  }, 60_000);

  it('mistakes: a reversed key_range, key_range on a text key, --parallel on a tail, partition with a queue', async () => {
    const cases: [string[], RegExp][] = [
      [['copy', `${PG_URL}?table=part_src&key_range=500..20`, '-'], /key_range=500\.\.20 is not lo\.\.hi with integers lo < hi/],
      [['copy', `${PG_URL}?table=par_text&key_range=1..5`, '-'], /key_range needs a primary key of one integer column; par_text's is k text/],
      [['tail', `${PG_URL}?table=part_src&cursor_column=id`, '-', '--parallel', '2'], /--parallel on one table is for copy/],
      [['copy', `${PG_URL}?table=part_src&delete_after_read=true&partition=0/2`, '-'], /partition cannot be combined with delete_after_read: .* a queue is already shared by running more readers/],
      [['copy', `${PG_URL}?table=part_src&partition=4/4`, '-'], /partition=4\/4 is not k\/N with 0 <= k < N/],
    ];
    for (const [args, want] of cases) {
      const r = await bridge(args);
      expect({ args: args.join(' '), code: r.exitCode, err: r.stderr }).toEqual({ args: args.join(' '), code: 2, err: expect.stringMatching(want) });
    }
  }, 60_000);
});
