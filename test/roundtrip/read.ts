import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { parsePgArray } from '../../src/connectors/postgres/array.js';
import { decimalText, parseDecimal, shortestFloat32 } from '../../src/connectors/sql/values/exact.js';
import { toRfc3339 } from '../../src/connectors/sql/values/render.js';
import { parseJsonExact, type JsonNode } from '../../src/core/json-exact.js';
import { MYSQL_URL, PG_URL } from '../helpers/databases.js';
import type { Family } from './gen.js';

/** One stored value as its database prints it, with SQLite's storage class. */
export interface Cell {
  text: string;
  cls?: string;
}
export type Rows = Map<number, Map<string, Cell | null>>;

/** Every value of `cols` by row id, as the server's own text (PostgreSQL ::text, MariaDB's text protocol, SQLite's classes). */
export async function readCells(kind: string, target: string, table: string, cols: string[]): Promise<Rows> {
  const out: Rows = new Map();
  const put = (id: unknown, col: string, cell: Cell | null): void => {
    const n = Number(id);
    if (!out.has(n)) out.set(n, new Map());
    out.get(n)!.set(col, cell);
  };
  if (kind === 'postgres') {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query("SET TimeZone = 'UTC'; SET extra_float_digits = 1");
    // Bit strings are marked: their digits are binary, where MariaDB's HEX() and SQLite's blobs are hex.
    // inet::text adds the /32 or /128 its output leaves out: read as output (format's %s), as bridge does.
    const expr = (x: string): string => `CASE WHEN pg_typeof("${x}")::text IN ('bit', 'bit varying') THEN 'b:' || "${x}"::text WHEN pg_typeof("${x}")::text = 'inet' THEN format('%s', "${x}") ELSE "${x}"::text END`;
    const r = await c.query({ text: `SELECT id::text, ${cols.map(expr).join(', ')} FROM "${table}"`, rowMode: 'array' });
    await c.end();
    for (const row of r.rows as (string | null)[][]) cols.forEach((col, i) => put(row[0], col, row[i + 1] === null ? null : { text: row[i + 1]! }));
  } else if (kind === 'sqlite') {
    const db = new Database(target, { readonly: true });
    db.defaultSafeIntegers(true);
    const rows = db.prepare(`SELECT id, ${cols.map((x) => `typeof("${x}"), "${x}"`).join(', ')} FROM "${table}"`).raw(true).all() as unknown[][];
    db.close();
    for (const row of rows)
      cols.forEach((col, i) => {
        const cls = String(row[1 + 2 * i]);
        const v = row[2 + 2 * i];
        if (cls === 'null') return put(row[0], col, null);
        const text = Buffer.isBuffer(v) ? v.toString('hex') : typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : String(v);
        put(row[0], col, { text, cls });
      });
  } else {
    const conn = await mysql.createConnection({ uri: MYSQL_URL, charset: 'UTF8MB4_UNICODE_CI', timezone: 'Z', typeCast: (field) => field.string('utf8') });
    await conn.query("SET time_zone = '+00:00'");
    const [types] = await conn.query({ sql: 'SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?', values: [table], rowsAsArray: true });
    const typeOf = new Map((types as string[][]).map(([n, t]) => [String(n), String(t)]));
    const binary = new Set(cols.filter((c) => /blob|binary|geometry|point|linestring|polygon|geomcollection/.test(typeOf.get(c) ?? '')));
    // BIT as hex; FLOAT as the double it holds (the text protocol prints 6 digits), shortened back below.
    const expr = (x: string): string => (binary.has(x) || typeOf.get(x) === 'bit' ? `HEX(\`${x}\`)` : typeOf.get(x) === 'float' ? `CAST(\`${x}\` AS DOUBLE)` : `\`${x}\``);
    const list = cols.map(expr).join(', ');
    const [rows] = await conn.query({ sql: `SELECT id, ${list} FROM \`${table}\``, rowsAsArray: true });
    await conn.end();
    for (const row of rows as unknown[][])
      cols.forEach((col, i) => {
        const v = row[i + 1];
        if (v === null) return put(row[0], col, null);
        if (typeOf.get(col) === 'float') return put(row[0], col, { text: shortestFloat32(Number(v)) });
        put(row[0], col, binary.has(col) ? { text: String(v).toLowerCase(), cls: 'blob' } : { text: String(v) });
      });
  }
  return out;
}

const stripFraction = (s: string): string => s.replace(/(\.\d*?)0+(?=$|[-+Z ])/, '$1').replace(/\.(?=$|[-+Z ])/, '');

/** Array text of either form (PostgreSQL `{…}` or JSON `[…]`) as nested element texts. */
function arrayOf(text: string): string {
  const fromPg = (v: unknown): unknown => (Array.isArray(v) ? v.map(fromPg) : v === null ? null : v === 't' ? 'true' : v === 'f' ? 'false' : String(v));
  const fromJson = (n: JsonNode): unknown =>
    n.kind === 'array' ? n.items.map(fromJson) : n.kind === 'null' ? null : n.kind === 'number' ? n.raw : n.kind === 'string' ? n.value : n.kind === 'object' ? n.raw : n.kind;
  return JSON.stringify(text.startsWith('[') ? fromJson(parseJsonExact(text)) : fromPg(parsePgArray(text)));
}

const asNumber = (text: string): string => {
  const d = parseDecimal(text);
  return d ? decimalText(d) : `text:${text}`;
};

/**
 * What a value means, so that two databases' spellings of the same value compare equal (`t` and
 * `1`, `30.00` and `30.0`, `2024-01-02T03:04:05Z` and `2024-01-02 03:04:05`) and nothing else does.
 */
export function meaning(family: Family, cell: Cell | null): string | null {
  if (cell === null) return null;
  const { text, cls } = cell;
  if (family === 'any') return `${cls}:${text}`;
  if (cls === 'blob' && family !== 'bytes' && family !== 'bits') return `blob:${text}`;
  // Text in a numeric column of SQLite is not a number; a decimal kept as TEXT (wider than a REAL) is.
  if (cls === 'text' && (['int', 'bool', 'float', 'float4'].includes(family) || (family === 'decimal' && !parseDecimal(text) && !['NaN', 'Infinity', '-Infinity'].includes(text)))) return `text:${text}`;
  switch (family) {
    case 'int':
      return asNumber(text);
    case 'bool':
      return text === 't' || text === 'true' ? '1' : text === 'f' || text === 'false' ? '0' : asNumber(text);
    case 'decimal':
      return ['NaN', 'Infinity', '-Infinity'].includes(text) ? text : asNumber(text);
    case 'float4': {
      const f = meaning('float', cell);
      return f !== null && /^-?\d|^-?\.\d/.test(f) && f !== '-0' ? shortestFloat32(Number(f)) : f;
    }
    case 'float': {
      if (['NaN', 'Infinity', '-Infinity', 'inf', '-inf'].includes(text)) return text.replace(/^(-?)inf$/, '$1Infinity');
      const n = Number(text);
      return Object.is(n, -0) ? '-0' : Number.isNaN(n) ? `text:${text}` : String(n);
    }
    case 'bytes':
      return text.replace(/^\\x/, '').toLowerCase();
    case 'bits':
      // PostgreSQL bit strings (marked b:) and SQLite text of 0s and 1s are binary; the rest is hex.
      if (text.startsWith('b:') || (cls === 'text' && /^[01]+$/.test(text))) return BigInt(`0b${text.replace(/^b:/, '') || '0'}`).toString();
      return BigInt(`0x${text.replace(/^\\x/, '') || '0'}`).toString();
    case 'time':
      return stripFraction(text);
    case 'timestamp':
    case 'timestamptz': {
      let t = text.replace('T', ' ');
      if (/\d\d:\d\d(:\d\d(\.\d+)?)?\s*(Z|[+-]\d\d(:?\d\d)?)$/i.test(t)) t = toRfc3339(t).replace('T', ' ').replace(/Z$/, '');
      return stripFraction(t);
    }
    case 'array':
      return arrayOf(text);
    default:
      return text;
  }
}
