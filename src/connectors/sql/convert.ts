import { rejectedError } from '../../core/errors.js';
import { stringValue, type RawField } from '../../core/json-fields.js';
import type { Message } from '../../core/message.js';
import { toRfc3339 } from './render.js';
import type { Binding } from './tokens.js';
import type { ColumnInfo, SqlKind } from './types.js';

const INT = /^-?\d+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A JSON number for the driver: exact text for PostgreSQL and unsafe values, a JS number otherwise. */
function numberFor(raw: string, kind: SqlKind): unknown {
  if (kind === 'postgres') return raw;
  if (kind === 'sqlite') return INT.test(raw) ? BigInt(raw) : Number(raw);
  const n = Number(raw);
  return Number.isSafeInteger(n) || (!INT.test(raw) && String(n) === raw) ? n : raw;
}

const boolFor = (v: boolean, kind: SqlKind): unknown => (kind === 'sqlite' ? (v ? 1 : 0) : v);

/**
 * Contract §4.1 rules 2, 4 and 7: what a token binds. Strings bind as text, numbers and booleans
 * stay typed; an absent metadata key, a non-JSON payload, a missing or non-scalar field bind NULL.
 */
export function tokenValue(b: Binding, m: Message, kind: SqlKind): unknown {
  if (b.from === 'payload') return m.text();
  if (b.from === 'metadata') return m.metadata?.[b.key] ?? null;
  const f = m.fields()?.get(b.name);
  if (!f) return null;
  switch (f.kind) {
    case 'string':
      return stringValue(f);
    case 'number':
      return numberFor(f.raw, kind);
    case 'true':
      return boolFor(true, kind);
    case 'false':
      return boolFor(false, kind);
    default:
      return null;
  }
}

/** `2024-01-02T03:04:05.123456Z` / `…+02` → `2024-01-02 03:04:05.123456` in UTC, for MySQL DATETIME. */
function mysqlDatetime(text: string): string {
  if (!/[T+Z]|[+-]\d\d(:?\d\d)?$/.test(text.slice(10))) return text;
  const rfc = toRfc3339(text);
  return rfc.endsWith('Z') ? rfc.slice(0, -1).replace('T', ' ') : text;
}

const textOf = (f: RawField): string => (f.kind === 'string' ? stringValue(f) : f.raw);

/**
 * columns=auto: a payload field converted for its column, so the value arrives exactly
 * (decimals and big integers as text, JSON as its source text, bytes from base64).
 * Throws a rejection naming the message when the value cannot be that type.
 */
export function columnValue(f: RawField, col: ColumnInfo, kind: SqlKind, m: Message): unknown {
  if (f.kind === 'null') return null;
  const bad = (why: string): never => {
    throw rejectedError(`message ${m.idHex}: field ${col.name} ${why}`, undefined, m.idHex);
  };
  switch (col.type) {
    case 'bool':
      if (f.kind === 'true' || f.kind === 'false') return boolFor(f.kind === 'true', kind);
      if (f.kind === 'number') return boolFor(Number(f.raw) !== 0, kind);
      if (f.kind === 'string') {
        const s = stringValue(f).toLowerCase();
        if (['t', 'true', '1', 'yes', 'y', 'on'].includes(s)) return boolFor(true, kind);
        if (['f', 'false', '0', 'no', 'n', 'off'].includes(s)) return boolFor(false, kind);
      }
      return bad(`is ${f.raw.slice(0, 40)}, not a boolean for ${col.dbType}`);
    case 'int':
    case 'bigint':
    case 'decimal':
    case 'float': {
      if (f.kind === 'true' || f.kind === 'false') return f.kind === 'true' ? 1 : 0;
      if (f.kind === 'object' || f.kind === 'array') return bad(`is a JSON ${f.kind}, not a number for ${col.dbType}`);
      // Text is exact: PostgreSQL and MySQL parse it into the column's type themselves.
      const s = f.kind === 'string' ? stringValue(f) : f.raw;
      if (kind !== 'sqlite' || col.type === 'decimal') return s;
      return INT.test(s) && col.type !== 'float' ? BigInt(s) : Number(s);
    }
    case 'json':
      return f.raw;
    case 'bytes': {
      if (f.kind !== 'string') return bad(`is a JSON ${f.kind}; ${col.dbType} takes base64 text`);
      const s = stringValue(f);
      if (!BASE64.test(s)) return bad(`is not base64 (bytes columns take base64 text)`);
      return Buffer.from(s, 'base64');
    }
    case 'timestamp':
    case 'timestamptz':
    case 'date':
      if (f.kind !== 'string') return bad(`is a JSON ${f.kind}, not a date/time for ${col.dbType}`);
      if (kind === 'mysql' || kind === 'mariadb') return mysqlDatetime(stringValue(f));
      // SQL Server parses ISO 8601 but not PostgreSQL's `+00` offsets: normalise to RFC 3339 (UTC).
      if (kind === 'sqlserver' && col.type !== 'date') return col.type === 'timestamptz' ? toRfc3339(stringValue(f)) : mysqlDatetime(stringValue(f));
      return stringValue(f);
    case 'array':
      if (f.kind !== 'array') return bad(`is a JSON ${f.kind}, not an array for ${col.dbType}`);
      return JSON.parse(f.raw) as unknown[];
    default:
      return textOf(f);
  }
}
