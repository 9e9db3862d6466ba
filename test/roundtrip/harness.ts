import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { bridge } from '../helpers/bridge.js';
import { MARIADB_URL, MYSQL_URL, PG_URL, type TestDb } from '../helpers/databases.js';
import type { Case } from './gen.js';
import { meaning, readCells, type Rows } from './read.js';

export type SourceKind = 'postgres' | 'mariadb' | 'sqlite';
export type TargetKind = 'postgres' | 'mysql' | 'mariadb' | 'sqlite' | 'ndjson';

/** The endpoint URL of a table on a kind (the SQLite file is shared by the suite). */
export function urlOf(kind: TargetKind, table: string, sqliteFile: string, query = ''): string {
  const q = query ? `&${query}` : '';
  switch (kind) {
    case 'postgres':
      return `${PG_URL}?table=${table}${q}`;
    case 'mysql':
      return `${MYSQL_URL}?table=${table}${q}`;
    case 'mariadb':
      return `${MARIADB_URL}?table=${table}${q}`;
    case 'sqlite':
      return `sqlite://${sqliteFile}?table=${table}${q}`;
    case 'ndjson':
      return `file://${path.join(path.dirname(sqliteFile), `${table}.ndjson`)}`;
  }
}

const quoteIdent = (kind: SourceKind, name: string): string => (kind === 'mariadb' ? `\`${name}\`` : `"${name}"`);

/** The source table: one column per case, and one row per value with every other column NULL (a rejection names one value). */
export async function createSource(db: TestDb, kind: SourceKind, table: string, cases: Case[]): Promise<Map<number, { c: Case; literal: string }>> {
  const cols = cases.map((c) => `${quoteIdent(kind, c.col)} ${c.ddl}`).join(', ');
  await db.exec(`DROP TABLE IF EXISTS ${table}`);
  await db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, ${cols})${kind === 'mariadb' ? ' DEFAULT CHARSET utf8mb4' : ''}`);
  const rows = new Map<number, { c: Case; literal: string }>();
  let id = 0;
  if (kind === 'mariadb') await db.exec("SET SESSION sql_mode = ''"); // ENUM '' and zero dates, as old applications stored them
  for (const c of cases)
    for (const literal of c.values) {
      id++;
      rows.set(id, { c, literal });
      await db.exec(`INSERT INTO ${table} (id, ${quoteIdent(kind, c.col)}) VALUES (${id}, ${literal})`);
    }
  if (kind === 'mariadb') await db.exec('SET SESSION sql_mode = DEFAULT');
  return rows;
}

/** The back table: the source's own DDL under another name. */
export async function createLike(db: TestDb, kind: SourceKind, table: string, cases: Case[]): Promise<void> {
  await db.exec(`DROP TABLE IF EXISTS ${table}`);
  await db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, ${cases.map((c) => `${quoteIdent(kind, c.col)} ${c.ddl}`).join(', ')})${kind === 'mariadb' ? ' DEFAULT CHARSET utf8mb4' : ''}`);
}

/** Per column, the dry run's LOSSY and REJECTS texts. */
export function flagsOf(plan: string): Map<string, { lossy: string; rejects: string }> {
  const out = new Map<string, { lossy: string; rejects: string }>();
  for (const line of plan.split('\n')) {
    const m = /^ {4}(.+?) .* → (.+?)(?:\s{2}(LOSSY: .*?))?(?:\s{2}(REJECTS: .*))?$/.exec(line);
    if (!m || !line.includes(' → ')) continue;
    const name = m[1]!;
    out.set(name, { lossy: /LOSSY: (.*?)(\s{2}REJECTS|$)/.exec(line)?.[1] ?? '', rejects: /REJECTS: (.*)$/.exec(line)?.[1] ?? '' });
  }
  return out;
}

/** Row ids that went to a dead-letter file. */
export function deadIds(file: string): Set<number> {
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => Number((JSON.parse(l) as { payload: { id: number } }).payload.id)),
  );
}

export interface Outcome {
  id: number;
  col: string;
  literal: string;
  what: 'exact' | 'rejected' | 'changed' | 'lost';
  detail: string;
}

/** Compares each row's one value in `got` with the source; a row that is missing must be in the dead-letter set. */
export function outcomes(rows: Map<number, { c: Case; literal: string }>, src: Rows, got: Rows, dead: Set<number>, only?: Set<number>): Outcome[] {
  const out: Outcome[] = [];
  for (const [id, { c, literal }] of rows) {
    if (only && !only.has(id)) continue;
    const want = meaning(c.family, src.get(id)?.get(c.col) ?? null);
    const row = got.get(id);
    if (!row) {
      out.push({ id, col: c.col, literal, what: dead.has(id) ? 'rejected' : 'lost', detail: `source ${want}` });
      continue;
    }
    const have = meaning(c.family, row.get(c.col) ?? null);
    const sameClass = src.get(id)?.get(c.col)?.cls === undefined || row.get(c.col)?.cls === undefined || src.get(id)?.get(c.col)?.cls === row.get(c.col)?.cls;
    out.push({ id, col: c.col, literal, what: want === have && sameClass ? 'exact' : 'changed', detail: `${JSON.stringify(src.get(id)?.get(c.col))} → ${JSON.stringify(row.get(c.col))}` });
  }
  return out;
}

/** Runs a copy with a dead-letter file and returns the landed rows' summary count. */
export async function copy(from: string, to: string, deadFile: string): Promise<{ exitCode: number; stderr: string; rows: number }> {
  const r = await bridge(['copy', from, to, '--dead-letter', `file://${deadFile}`, '--progress', 'plain', '--batch-size', '200']);
  const rows = Number(/: (?:done|failed): ([\d,]+) rows/.exec(r.stderr)?.[1]?.replace(/,/g, '') ?? -1);
  return { exitCode: r.exitCode, stderr: r.stderr, rows };
}

export { readCells };
