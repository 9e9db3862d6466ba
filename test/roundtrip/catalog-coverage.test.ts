import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgres, type TestDb } from '../helpers/databases.js';
import { PG_BUILTIN_SAMPLES, PG_NOT_STORABLE } from './catalog-pg-builtins.js';
import { pgCases } from './catalog-pg.js';

/**
 * Issue 26: the round-trip catalogue comes from the server, not from our memory. Every built-in
 * base, range, multirange and enum type pg_type lists must have a verdict: generated values in
 * catalog-pg.ts, samples in catalog-pg-builtins.ts, or a reason no column can hold one.
 */
let pg: TestDb;
beforeAll(async () => {
  pg = await postgres();
});
afterAll(async () => {
  await pg.close();
});

it("every built-in type in PostgreSQL's pg_type has a verdict in the round-trip catalogue", async () => {
  const rows = await pg.rows(`SELECT format_type(oid, NULL) AS t FROM pg_type
    WHERE typnamespace = 'pg_catalog'::regnamespace AND typtype IN ('b', 'r', 'm', 'e', 'd') AND typcategory NOT IN ('P', 'A')
      AND typisdefined AND typrelid = 0 ORDER BY 1`);
  const covered = new Set([...pgCases().map((c) => c.ddl.replace(/\(.*\)/, '').trim()), ...Object.keys(PG_BUILTIN_SAMPLES), ...Object.keys(PG_NOT_STORABLE)]);
  // Names the main catalogue spells with a length or as an alias.
  for (const [alias, name] of [['varchar', 'character varying'], ['timestamp', 'timestamp without time zone'], ['timestamptz', 'timestamp with time zone'], ['time', 'time without time zone'], ['bit varying', 'bit varying']]) if (covered.has(alias!)) covered.add(name!);
  const missing = rows.map((r) => String(r.t)).filter((t) => !covered.has(t));
  expect(missing, 'built-in types without a verdict: add samples to test/roundtrip/catalog-pg-builtins.ts').toEqual([]);
  expect(rows.length).toBeGreaterThan(60);
});
