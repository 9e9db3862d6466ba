import { decimalOfDouble, decimalText, parseDecimal, shortestFloat32 } from './exact.js';
import type { ColumnVariant, LogicalType } from '../types.js';

/** Renders one raw driver value as a JSON fragment. */
export type ValueRenderer = (raw: unknown) => string;

export interface RenderColumn {
  name: string;
  type: LogicalType | undefined;
  elem?: LogicalType | undefined;
  scale?: number | undefined;
  variant?: ColumnVariant | undefined;
  /** 24 for 4-byte floats: rendered with the shortest digits that read back as the same float. */
  floatBits?: 24 | 53 | undefined;
}

export interface RenderOptions {
  timestamps: 'text' | 'rfc3339';
  /** Parses a driver's array text into raw elements (PostgreSQL); arrays arrive as JS arrays otherwise. */
  parseArray?: (text: string) => unknown;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;
const quote = JSON.stringify;

function asText(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  return String(raw);
}

/** Integers within ±2^53 are numbers, larger ones decimal strings (decisions §4). */
export function renderInteger(raw: unknown): string {
  const s = typeof raw === 'string' ? raw.trim() : String(raw);
  // 15 digits are always safe; only longer ones need the exact comparison.
  if (s.length <= 15 + (s[0] === '-' ? 1 : 0)) return s;
  const b = BigInt(s);
  return b > MAX_SAFE || b < MIN_SAFE ? quote(s) : s;
}

function renderFloat(raw: unknown): string {
  if (typeof raw === 'number') return Number.isFinite(raw) ? (Object.is(raw, -0) ? '-0' : String(raw)) : quote(String(raw));
  const s = asText(raw);
  if (s === 'NaN' || s === 'Infinity' || s === '-Infinity') return quote(s);
  if (s === 'inf' || s === '+inf') return quote('Infinity');
  if (s === '-inf') return quote('-Infinity');
  const n = Number(s);
  return Number.isFinite(n) ? s.replace(/^(-?)\./, '$10.').replace(/^\+/, '') : quote(s);
}

/**
 * Booleans are true/false; a boolean column that is an integer underneath (MySQL TINYINT(1),
 * SQLite) can hold other integers, which stay numbers so that nothing is lost.
 */
function renderBool(raw: unknown): string {
  if (Buffer.isBuffer(raw)) return raw.some((b) => b !== 0) ? 'true' : 'false';
  if (raw === true || raw === 't' || raw === 'true') return 'true';
  if (raw === false || raw === 'f' || raw === 'false') return 'false';
  const s = String(raw);
  if (s === '1') return 'true';
  if (s === '0') return 'false';
  return /^-?\d+$/.test(s) ? renderInteger(s) : quote(s);
}

function renderBytes(raw: unknown): string {
  if (Buffer.isBuffer(raw)) return quote(raw.toString('base64'));
  const s = asText(raw);
  // PostgreSQL's hex output format.
  if (s.startsWith('\\x')) return quote(Buffer.from(s.slice(2), 'hex').toString('base64'));
  return quote(Buffer.from(s, 'utf8').toString('base64'));
}

function renderJson(raw: unknown): string {
  let s = asText(raw);
  // Raw newlines in JSON text are whitespace; NDJSON needs one line per row.
  if (s.includes('\n') || s.includes('\r')) s = s.replace(/[\r\n]+/g, ' ');
  return s;
}

/** JSON kept as text by a database that does not check it (SQLite): embed only when it parses. */
function renderJsonChecked(raw: unknown): string {
  const s = asText(raw);
  try {
    JSON.parse(s);
  } catch {
    return quote(s);
  }
  return renderJson(s);
}

function decimalRenderer(scale: number | undefined): ValueRenderer {
  return (raw) => {
    // Drivers hand decimals over as exact text; SQLite keeps them as REAL or INTEGER: the number's
    // own digits (never rounded to the declared scale, never in exponent form), padded to the scale.
    if (typeof raw === 'number' && Number.isFinite(raw)) return quote(decimalText(decimalOfDouble(raw), scale ?? 0));
    if (typeof raw === 'bigint') return quote(decimalText(parseDecimal(String(raw))!, scale ?? 0));
    return quote(asText(raw));
  };
}

/**
 * Timestamp text to RFC 3339 in UTC, keeping every fractional digit. Accepts `YYYY-MM-DD HH:MM:SS[.f…][±HH[:MM[:SS]]]`;
 * anything else (infinity, BC dates) is returned as the database wrote it.
 */
export function toRfc3339(text: string): string {
  const m = /^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d(?::?\d\d(?::?\d\d)?)?)?$/.exec(text);
  if (!m) return text;
  const [, y, mo, d, h, mi, s, frac = '', off] = m;
  if (!off || off === 'Z' || /^[+-]00(:?00(:?00)?)?$/.test(off)) return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}Z`;
  const sign = off[0] === '-' ? -1 : 1;
  const parts = off.slice(1).replace(/:/g, '');
  const offSec = sign * (Number(parts.slice(0, 2)) * 3600 + Number(parts.slice(2, 4) || 0) * 60 + Number(parts.slice(4, 6) || 0));
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offSec * 1000;
  const iso = new Date(utc).toISOString();
  return `${iso.slice(0, 19)}${frac}Z`;
}

function timestampRenderer(o: RenderOptions): ValueRenderer {
  if (o.timestamps === 'rfc3339') return (raw) => quote(toRfc3339(asText(raw)));
  return (raw) => quote(asText(raw));
}

const renderText: ValueRenderer = (raw) => quote(asText(raw));

function scalarRenderer(type: LogicalType | undefined, scale: number | undefined, o: RenderOptions, jsonChecked: boolean, floatBits?: number): ValueRenderer {
  switch (type) {
    case 'bool':
      return renderBool;
    case 'int':
    case 'bigint':
      return renderInteger;
    case 'decimal':
      return decimalRenderer(scale);
    case 'float':
      return floatBits === 24 ? (raw) => renderFloat(typeof raw === 'number' ? Number(shortestFloat32(raw)) : raw) : renderFloat;
    case 'json':
      return jsonChecked ? renderJsonChecked : renderJson;
    case 'bytes':
      return renderBytes;
    case 'timestamp':
    case 'timestamptz':
      return timestampRenderer(o);
    default:
      return renderText;
  }
}

const NUMERIC_FAMILY = new Set<LogicalType>(['int', 'bigint', 'float', 'bool']);
const TEXT_FAMILY = new Set<LogicalType>(['text', 'date', 'time', 'timestamp', 'timestamptz', 'uuid', 'json']);

/**
 * A database that does not enforce declared types (SQLite) can hold text in an INTEGER column:
 * values of another family than the column's are rendered by their own JS type.
 */
function looseRenderer(type: LogicalType, inner: ValueRenderer): ValueRenderer {
  if (NUMERIC_FAMILY.has(type)) return (raw) => (typeof raw === 'string' || Buffer.isBuffer(raw) ? dynamicRenderer(raw) : inner(raw));
  if (TEXT_FAMILY.has(type)) return (raw) => (typeof raw === 'string' ? inner(raw) : dynamicRenderer(raw));
  if (type === 'bytes') return (raw) => (Buffer.isBuffer(raw) ? inner(raw) : dynamicRenderer(raw));
  return inner;
}

/**
 * Builds the renderer of one column; arrays render each element with the element type. `loose`
 * is for databases that do not enforce declared types (SQLite): JSON text is checked, and values
 * of another family render by their JS type.
 */
export function columnRenderer(c: RenderColumn, o: RenderOptions, loose = false): ValueRenderer {
  let inner =
    c.type === 'array'
      ? arrayRenderer(scalarRenderer(c.elem, undefined, o, loose), o)
      : c.type === undefined
        ? dynamicRenderer
        : scalarRenderer(c.type, c.scale, o, loose, c.floatBits);
  if (loose && c.type !== undefined) inner = looseRenderer(c.type, inner);
  return (raw) => (raw === null || raw === undefined ? 'null' : inner(raw));
}

function arrayRenderer(elem: ValueRenderer, o: RenderOptions): ValueRenderer {
  const walk = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (Array.isArray(v)) return '[' + v.map(walk).join(',') + ']';
    return elem(v);
  };
  return (raw) => {
    const v = typeof raw === 'string' && o.parseArray ? o.parseArray(raw) : raw;
    // A kind's array that a JSON array cannot hold exactly (PostgreSQL lower bounds) stays its text.
    return typeof v === 'string' ? quote(v) : walk(v);
  };
}

/** For values whose type the driver did not say (SQLite expressions): render by JS type. */
export const dynamicRenderer: ValueRenderer = (raw) => {
  switch (typeof raw) {
    case 'bigint':
    case 'number':
      return typeof raw === 'number' && !Number.isInteger(raw) ? renderFloat(raw) : renderInteger(raw);
    case 'boolean':
      return raw ? 'true' : 'false';
    case 'string':
      return quote(raw);
    default:
      if (Buffer.isBuffer(raw)) return renderBytes(raw);
      if (raw === null || raw === undefined) return 'null';
      return quote(String(raw));
  }
};

/** Compiles a row renderer: column keys are escaped once, values rendered per row without objects. */
export function rowRenderer(cols: RenderColumn[], o: RenderOptions, loose = false): (row: unknown[]) => string {
  const prefixes = cols.map((c, i) => (i === 0 ? '{' : ',') + quote(c.name) + ':');
  const renderers = cols.map((c) => columnRenderer(c, o, loose));
  const n = cols.length;
  if (n === 0) return () => '{}';
  return (row) => {
    let s = '';
    for (let i = 0; i < n; i++) s += prefixes[i]! + renderers[i]!(row[i]);
    return s + '}';
  };
}
