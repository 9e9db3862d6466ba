import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridge, spawnBridge, tempDir, waitFor } from '../helpers/bridge.js';
import { PG_URL, postgres, sqlite, type TestDb } from '../helpers/databases.js';

/**
 * Issue 27, 2: a mirror built by change capture never got the rows already there — the slot
 * streams only what commits after it. snapshot=initial (the default) copies them first, read in
 * the snapshot the slot exports, so that no change is missed or applied twice; a copy stopped by
 * SIGKILL resumes after its last confirmed key. The mirror is compared by content with the source.
 */
const dir = tempDir();
let pg: TestDb;
let lite: TestDb;
const slots = ['ic_slot_live', 'ic_slot_kill', 'ic_slot_term', 'ic_slot_never'];
const dropSlots = () => pg.exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name IN (${slots.map((s) => `'${s}'`).join(', ')}) AND NOT active`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  pg = await postgres();
  lite = sqlite(path.join(dir, 'mirror.db'));
  await dropSlots();
});
afterAll(async () => {
  await dropSlots();
  await pg.close();
  await lite.close();
});

async function table(name: string, rows: number): Promise<void> {
  await pg.exec(`DROP PUBLICATION IF EXISTS ${name}_pub; DROP TABLE IF EXISTS ${name}, bridge_cursors_${name}; CREATE TABLE ${name} (id int PRIMARY KEY, v text NOT NULL, n bigint)`);
  await pg.exec(`INSERT INTO ${name} SELECT g, 'v' || g, g * 7 FROM generate_series(1, ${rows}) g`);
  await lite.exec(`DROP TABLE IF EXISTS ${name}`);
}
const source = async (name: string) => (await pg.rows(`SELECT id, v, n FROM ${name} ORDER BY id`)).map((r) => `${String(r.id)}|${String(r.v)}|${String(r.n)}`);
const mirror = async (name: string) => (await lite.rows(`SELECT id, v, n FROM ${name} ORDER BY id`)).map((r) => `${String(r.id)}|${String(r.v)}|${String(r.n)}`);

/** Inserts, updates and deletes in small transactions until stopped. */
function writer(name: string, from: number): { stop(): Promise<number> } {
  let on = true;
  let n = 0;
  const done = (async () => {
    for (let i = from + 1; on; i++, n++) {
      await pg.exec(`BEGIN; INSERT INTO ${name} VALUES (${i}, 'new ${i}', ${i}); UPDATE ${name} SET v = 'upd ${i}', n = n + 1 WHERE id = ${(i * 37) % from}; DELETE FROM ${name} WHERE id = ${(i * 53) % from}; COMMIT`);
      await sleep(2);
    }
  })();
  return {
    async stop() {
      on = false;
      await done;
      return n;
    },
  };
}

describe('change capture starts with the rows already there (snapshot=initial)', () => {
  it('a table of 30,000 rows written to while its mirror starts: the mirror equals the source', async () => {
    const t = 'ic_live';
    await table(t, 30_000);
    const args = ['tail', `${PG_URL}?table=${t}&publication=${t}_pub&create_publication=true&slot_name=ic_slot_live`, `sqlite://${path.join(dir, 'mirror.db')}?table=${t}&columns=auto&key=id&auto_create_table=true`, '--progress', 'none', '--batch-size', '500'];
    const w = writer(t, 30_000);
    const p = spawnBridge(args);
    await sleep(3000);
    const writes = await w.stop();
    const want = await source(t);
    await waitFor(async () => (await mirror(t).catch(() => [])).length === want.length, 60_000, 300).catch(() => undefined);
    p.kill('SIGTERM');
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(writes).toBeGreaterThan(20);
    expect(await mirror(t)).toEqual(want);
  }, 120_000);

  it('SIGKILL during the initial copy, twice: the next run resumes after the last confirmed key, and the mirror equals the source', async () => {
    const t = 'ic_kill';
    await table(t, 300_000);
    const args = ['tail', `${PG_URL}?table=${t}&publication=${t}_pub&create_publication=true&slot_name=ic_slot_kill`, `sqlite://${path.join(dir, 'mirror.db')}?table=${t}&columns=auto&key=id&auto_create_table=true`, '--progress', 'none', '--batch-size', '100'];
    const w = writer(t, 300_000);
    const progress = async (): Promise<number | undefined> => {
      const r = await pg.rows(`SELECT last_value FROM bridge_cursors_${t} WHERE cursor_id = 'cdc:ic_slot_kill'`).catch(() => []);
      const after = r.length ? (JSON.parse(String(r[0]!.last_value)) as { after: string[] | null }).after : undefined;
      return after === undefined ? undefined : Number(after?.[0] ?? 0);
    };
    let resumed = 0;
    // The copy reads ~100,000 rows a second here: killed once a tenth, then half of it is confirmed.
    for (const at of [30_000, 150_000]) {
      const p = spawnBridge(args);
      await waitFor(async () => ((await progress()) ?? 0) >= at, 60_000, 10);
      p.kill('SIGKILL');
      resumed += (String((await p).stderr).match(/resuming the initial copy of ic_kill after key \d+/g) ?? []).length;
      expect(await progress(), 'the copy was still under way at the kill').toBeLessThan(300_000);
    }
    const p = spawnBridge(args);
    await waitFor(async () => (await progress()) === undefined, 60_000, 100);
    const writes = await w.stop();
    const want = await source(t);
    await waitFor(async () => (await mirror(t).catch(() => [])).length === want.length, 60_000, 300).catch(() => undefined);
    p.kill('SIGTERM');
    const r = await p;
    resumed += (String(r.stderr).match(/resuming the initial copy of ic_kill after key \d+/g) ?? []).length;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(resumed, 'the second and the third run resume the copy').toBe(2);
    expect(writes).toBeGreaterThan(20);
    expect(await mirror(t)).toEqual(want);
    expect(await pg.rows(`SELECT last_value FROM bridge_cursors_${t}`), 'progress is dropped once the copy is over').toEqual([]);
  }, 180_000);

  it('SIGTERM during the initial copy: exit 0, it says where the copy stopped and that the next run resumes it; the progress is kept', async () => {
    const t = 'ic_term';
    await table(t, 300_000);
    const args = ['tail', `${PG_URL}?table=${t}&publication=${t}_pub&create_publication=true&slot_name=ic_slot_term`, `sqlite://${path.join(dir, 'mirror.db')}?table=${t}&columns=auto&key=id&auto_create_table=true`, '--progress', 'none', '--batch-size', '100'];
    const p = spawnBridge(args);
    await waitFor(async () => (await pg.rows(`SELECT 1 FROM bridge_cursors_${t} WHERE last_value LIKE '%"after":["%'`).catch(() => [])).length > 0, 60_000, 10);
    p.kill('SIGTERM');
    const r = await p;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toMatch(/the initial copy of ic_term stopped after \d+ rows: the next run resumes it/);
    expect(await pg.rows(`SELECT count(*)::int AS n FROM bridge_cursors_${t}`)).toEqual([{ n: 1 }]);
    // bridge slots shows what the slot keeps: the WAL, and the copy it was made for, where it stands.
    const listed = await bridge(['slots', PG_URL.replace(/^postgres(ql)?:/, 'postgres+cdc:') + `?tables=${t}`, '--format', 'json']);
    const row = listed.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { slot_name: string; initial_copy: string | null }).find((x) => x.slot_name === 'ic_slot_term');
    expect(row?.initial_copy).toMatch(/^ic_term after key \d+$/);
    expect((await bridge(['slots', PG_URL])).stdout).toMatch(/ic_slot_term .*copying ic_term after key \d+/);
    const again = await bridge([...args.slice(0, 3), '--exit-when-drained', '--progress', 'none']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await mirror(t)).toEqual(await source(t));
  }, 120_000);

  it('snapshot=never streams only what commits after the slot (and makes no checkpoint table)', async () => {
    const t = 'ic_never';
    await table(t, 100);
    const url = `${PG_URL}?table=${t}&publication=${t}_pub&create_publication=true&slot_name=ic_slot_never&snapshot=never`;
    const dst = `sqlite://${path.join(dir, 'mirror.db')}?table=${t}&columns=auto&key=id&auto_create_table=true`;
    expect((await bridge(['copy', url, dst, '-q'])).exitCode).toBe(0);
    await pg.exec(`UPDATE ${t} SET v = 'changed' WHERE id <= 3`);
    const r = await bridge(['copy', url, dst, '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await lite.rows(`SELECT id, v FROM ${t} ORDER BY id`)).map((r) => `${String(r.id)} ${String(r.v)}`)).toEqual(['1 changed', '2 changed', '3 changed']);
    expect(await pg.rows(`SELECT to_regclass('bridge_cursors_${t}') IS NULL AS none`)).toEqual([{ none: true }]);
  });

  it('snapshot=only: tail copies the table once as insert messages and exits 0, with no slot, publication or checkpoint table', async () => {
    const t = 'ic_only';
    await table(t, 1000);
    const r = await bridge(['tail', `${PG_URL}?table=${t}&publication=${t}_pub&snapshot=only`, '-', '--dst-opt', 'format=envelope', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; metadata: Record<string, string>; payload: { id: number } });
    expect(lines).toHaveLength(1000);
    expect(lines[0]!.metadata).toMatchObject({ 'bridge.op': 'insert', 'bridge.snapshot': 'true' });
    expect(lines.map((l) => l.payload.id)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(await pg.rows(`SELECT (SELECT count(*)::int FROM pg_replication_slots WHERE slot_name = 'bridge_slot') AS slots, (SELECT count(*)::int FROM pg_publication WHERE pubname = '${t}_pub') AS pubs, to_regclass('bridge_cursors_${t}') IS NULL AS no_table`)).toEqual([{ slots: 0, pubs: 0, no_table: true }]);
    const bad = await bridge(['tail', `${PG_URL}?table=${t}&publication=${t}_pub&snapshot=only&slot_name=x`, '-']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/snapshot=only copies the table once and uses no slot or publication: remove slot_name/);
  });

  it('snapshot is refused without publication, and checkpoint_store with snapshot=never', async () => {
    const a = await bridge(['copy', `${PG_URL}?table=ic_never&snapshot=initial`, '-']);
    expect({ code: a.exitCode, err: a.stderr.trim() }).toEqual({ code: 2, err: expect.stringMatching(/snapshot needs publication/) });
    const b = await bridge(['copy', `${PG_URL}?table=ic_never&publication=p&snapshot=never&checkpoint_store=file:///tmp/x`, '-']);
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toMatch(/checkpoint_store keeps the progress of change capture's initial copy: with snapshot=never there is none to keep/);
  });
});
