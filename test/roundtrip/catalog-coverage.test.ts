import { afterAll, beforeAll, expect, it } from 'vitest';
import { mysqlLike, postgres, type TestDb } from '../helpers/databases.js';
import { mariadbCases } from './catalog-mariadb.js';
import { PG_BUILTIN_SAMPLES, PG_NOT_STORABLE } from './catalog-pg-builtins.js';
import { pgCases } from './catalog-pg.js';

/**
 * Issue 26: the round-trip catalogue comes from the servers, not from our memory. Every type a
 * server lists must have a verdict, so the next type nobody here thought of fails this file first.
 */
let pg: TestDb;
let my: TestDb;
beforeAll(async () => {
  pg = await postgres();
  my = await mysqlLike('mariadb');
});
afterAll(async () => {
  await pg.close();
  await my.close();
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

/** The column type the server makes of a declaration, without lengths ('int unsigned', 'point'); undefined if it is no column type. */
async function columnType(db: TestDb, ddl: string): Promise<string | undefined> {
  try {
    await db.exec('DROP TEMPORARY TABLE IF EXISTS rt_probe');
    await db.exec(`CREATE TEMPORARY TABLE rt_probe (c ${ddl})`);
    const [col] = await db.rows('SHOW COLUMNS FROM rt_probe');
    return String(col!.Type).replace(/\(.*?\)/g, '').trim();
  } catch {
    return undefined;
  }
}

/**
 * MariaDB has no type catalogue table, but it ships its documentation: the help topics of 'Data
 * Types' and 'Geographic Features'. Every topic name (or its first word: 'JSON Data Type') the
 * server accepts as a column type, bare, sized or as an ENUM/SET, and UNSIGNED where it allows it,
 * is a type the catalogue must hold — compared as the server names the column it made.
 */
it('every column type in the data types MariaDB documents (its help tables) has a verdict in the round-trip catalogue', async () => {
  const topics = await my.rows("SELECT t.name FROM mysql.help_topic t JOIN mysql.help_category c USING (help_category_id) WHERE c.name IN ('Data Types', 'Geographic Features')");
  expect(topics.length, 'the server has no help tables (mariadb-install-db loads them)').toBeGreaterThan(100);
  const listed = new Map<string, string>();
  for (const { name } of topics) {
    const topic = String(name).replace(/\\_/g, '_');
    for (const word of new Set([topic, topic.split(' ')[0]!]))
      for (const ddl of [word, `${word}(10)`, `${word}('a')`]) {
        const t = await columnType(my, ddl);
        if (!t) continue;
        listed.set(t, ddl);
        const unsigned = await columnType(my, `${ddl} UNSIGNED`);
        if (unsigned) listed.set(unsigned, `${ddl} UNSIGNED`);
        break;
      }
  }
  const covered = new Set<string>();
  for (const c of mariadbCases()) covered.add((await columnType(my, c.ddl)) ?? `(not a column type: ${c.ddl})`);
  const missing = [...listed].filter(([t]) => !covered.has(t)).map(([t, ddl]) => `${t} (from ${ddl})`);
  expect(missing, 'documented types without a verdict: add cases to test/roundtrip/catalog-mariadb.ts').toEqual([]);
  expect(listed.size).toBeGreaterThan(40);
});
