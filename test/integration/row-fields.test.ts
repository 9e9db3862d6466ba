import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { scanFields, stringValue, type RawField } from '../../src/core/json-fields.js';
import { createSource, specForScheme } from '../../src/connectors/registry.js';
import { tempDir } from '../helpers/bridge.js';
import { allKinds, type TestDb } from '../helpers/databases.js';

/**
 * Sinks read fields straight from source rows (no JSON re-scan). This checks, on every type of every
 * kind, that those fields are exactly what scanning the rendered JSON would give.
 */
const view = (f: RawField | undefined) => (f === undefined ? undefined : { kind: f.kind, raw: f.raw, text: f.kind === 'string' ? stringValue(f) : undefined });

describe('row fields equal the fields of the rendered JSON', () => {
  const dir = tempDir();
  let dbs: TestDb[];
  beforeAll(async () => {
    dbs = await allKinds(path.join(dir, 'rf.db'));
    const pg = dbs[0]!;
    await pg.exec(`DROP TABLE IF EXISTS rf_pg; CREATE TABLE rf_pg (id int PRIMARY KEY, b bool, i2 int2, i8 int8, dec numeric, f4 real, f8 float8, t text, u uuid, j json, jb jsonb, by bytea, d date, tm time, ts timestamp, tz timestamptz, arr int[], iv interval)`);
    await pg.exec(`INSERT INTO rf_pg VALUES (1, true, -3, 9007199254740993, 30.00, 'NaN', '-Infinity', E'tab\\t"q" \\\\ ü', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1.10}', '"s"', '\\x00ff', '2024-02-29', '12:00:01.5', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02', '{1,NULL}', '1 day'),
      (2, false, 0, 42, -0.5, 1.5, 0.1, '', NULL, 'null', '[1,{"x":2}]', '', '1999-12-31', NULL, NULL, NULL, '{}', NULL), (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'true', '7', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`);
    const my = dbs[1]!;
    await my.exec(`DROP TABLE IF EXISTS rf_my; CREATE TABLE rf_my (id int PRIMARY KEY, b tinyint(1), ub bigint unsigned, \`dec\` decimal(10,2), f float, t text, j json, bl blob, d date, ts datetime(6), y year, e enum('x','y')) DEFAULT CHARSET utf8mb4`);
    await my.exec(`INSERT INTO rf_my VALUES (1, 1, 18446744073709551615, 30.00, 0.1, 'a\\tb', '{"a": 1.10}', x'00ff', '2024-02-29', '2024-01-02 03:04:05.5', 2024, 'y'), (2, NULL, 0, NULL, NULL, NULL, '[]', NULL, NULL, NULL, NULL, NULL)`);
    const sq = dbs[3]!;
    await sq.exec(`DROP TABLE IF EXISTS rf_sq; CREATE TABLE rf_sq (id INTEGER PRIMARY KEY, b BOOLEAN, n INT, dec DECIMAL(8,2), f REAL, t TEXT, j JSON, bl BLOB, ts DATETIME, anything)`);
    await sq.exec(`INSERT INTO rf_sq VALUES (1, 1, 99999999999999999, 30, 1.5, 'x', '{"a":1}', x'00ff', '2024-01-02 03:04:05', 'free'), (2, 0, 'text in int', '12.5', NULL, 7, 'not json', 'str', NULL, x'01')`);
  });
  afterAll(async () => {
    for (const d of dbs) await d.close();
  });

  for (const [kind, table, query] of [
    ['postgres', 'rf_pg', ''],
    ['postgres', 'rf_pg', 'timestamps=rfc3339'],
    ['mysql', 'rf_my', ''],
    ['sqlite', 'rf_sq', ''],
  ] as const) {
    it(`${kind} ${table} ${query}`, async () => {
      const db = dbs.find((d) => d.kind === kind)!;
      const src = await createSource(resolveEndpoint(db.url(table, query), 'consumer', specForScheme));
      await src.open({ mode: 'copy', batchSize: 100, warn: () => {}, exitWhenDrained: false, dryRun: false });
      const batch = (await src.next(100, new AbortController().signal))!;
      await src.close();
      expect(batch.messages.length).toBeGreaterThan(1);
      for (const m of batch.messages) {
        const scanned = scanFields(m.text())!;
        const fromRow = m.fields()!;
        const names = [...scanned].map(([n]) => n);
        expect([...fromRow].map(([n]) => n)).toEqual(names);
        for (const n of names) expect({ n, ...view(fromRow.get(n)) }).toEqual({ n, ...view(scanned.get(n)) });
      }
    });
  }
});
