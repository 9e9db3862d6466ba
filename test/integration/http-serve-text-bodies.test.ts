import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeLines, tempDir, waitFor } from '../helpers/bridge.js';
import { postgres, type TestDb } from '../helpers/databases.js';
import { serve, type Served } from '../helpers/serve.js';

/**
 * Found by a helper probing serve: `text/plain` bodies `"quoted"` and `quoted` both became the line
 * "quoted" in an NDJSON file, and `123`, `null` and `12345678901234567890` the JSON values 123, null
 * and a number: text that happened to parse as JSON was taken for JSON, so the client's text could
 * not be told from another's. A body declared text (text/*) is text: it is written as a JSON
 * string, whatever it holds. A body without a type that is JSON is still written as its document.
 */
const dir = tempDir();
const out = path.join(dir, 'out.ndjson');
let s: Served;

beforeAll(async () => {
  s = await serve(`file://${out}`);
});
afterAll(async () => {
  expect((await s.stop()).exitCode).toBe(0);
});

const post = async (body: string, type?: string): Promise<number> => {
  const r = await request(s.url, { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
  await r.body.text();
  return r.statusCode;
};

describe('serve into an NDJSON file: text bodies stay text', () => {
  it('text/plain and text/csv bodies land as JSON strings of exactly their text; an untyped JSON body as its document', async () => {
    const texts = ['"quoted"', 'quoted', '123', 'null', '12345678901234567890', '{"a":1}'];
    for (const t of texts) expect(await post(t, 'text/plain; charset=utf-8')).toBe(204);
    expect(await post('a,b\n1,2\n', 'text/csv')).toBe(204);
    expect(await post('{"untyped":12345678901234567890}')).toBe(204);
    await waitFor(async () => readWholeLines(out).length >= texts.length + 2, 10_000, 20);
    const { readFileSync } = await import('node:fs');
    const raw = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    expect(raw).toEqual([...texts.map((t) => JSON.stringify(t)), JSON.stringify('a,b\n1,2\n'), '{"untyped":12345678901234567890}']);
  });

  it('into a PostgreSQL jsonb payload column: the same text bodies are the JSON strings of their text', async () => {
    const pg: TestDb = await postgres();
    await pg.exec('DROP TABLE IF EXISTS tb_payload; CREATE TABLE tb_payload (id bigserial PRIMARY KEY, payload jsonb)');
    const p = await serve(pg.url('tb_payload'));
    try {
      for (const t of ['"quoted"', 'quoted', '123']) {
        const r = await request(p.url, { method: 'POST', body: t, headers: { 'content-type': 'text/plain' } });
        expect(r.statusCode, await r.body.text()).toBe(204);
      }
      expect(await pg.rows('SELECT payload FROM tb_payload ORDER BY id')).toEqual([{ payload: '"quoted"' }, { payload: 'quoted' }, { payload: '123' }]);
    } finally {
      expect((await p.stop()).exitCode).toBe(0);
      await pg.exec('DROP TABLE IF EXISTS tb_payload');
      await pg.close();
    }
  });
});
