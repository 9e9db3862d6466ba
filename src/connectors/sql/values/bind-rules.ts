import { toRfc3339 } from './render.js';
import type { Binder } from './bind.js';
import { isJson } from '../../../core/json-exact.js';
import type { RawField } from '../../../core/json-fields.js';
import type { ColumnInfo, LogicalType } from '../types.js';

/** Why one value cannot land exactly in its column; the writer turns it into a rejection of the message. */
export class Reject extends Error {}

export const reject = (why: string): never => {
  throw new Reject(why);
};

/** What the writer knows of where a field came from: a typed source column, or nothing (JSON sources). */
export interface SourceColumn {
  /** The column as introspected (or as the result described it, for select_query). */
  col: ColumnInfo;
  /** undefined when the database did not say (SQLite expressions). */
  type: LogicalType | undefined;
  /** The source does not enforce declared types (SQLite): each value's own class decides. */
  loose: boolean;
  kind: string;
  /** The source kind's binder: what its columns can hold (for verdicts). */
  binder: Binder;
}

/** Values a kind's columns may hold that other kinds may not, so a dry run can say what a target would refuse. */
export interface KindHolds {
  /** numeric NaN / ±Infinity (PostgreSQL). */
  decimalSpecials: boolean;
  /** date/timestamp ±infinity (PostgreSQL). */
  dateInfinity: boolean;
  /** `0000-00-00` dates (MySQL/MariaDB). */
  zeroDates: boolean;
  /** Dates before year 1 (PostgreSQL's BC). */
  bcDates: boolean;
  /** REAL/DOUBLE columns keep -0. */
  negativeZero: boolean;
  /** Declared types are not enforced: any column may hold any storage class (SQLite). */
  untyped: boolean;
  /** ENUM columns may hold '' (what MySQL stores for an invalid value outside strict mode). */
  invalidEnum: boolean;
}

/** Turns one payload field (plus the source's raw value, for loose sources) into what the driver binds. */
export type Converter = (f: RawField, native?: unknown) => unknown;

/** What a NativeConverter answers for a value it does not take: the full converter (with the field) decides. */
export const NEED_FIELD = Symbol('need the field');

/** Converts the driver's own value where that is the whole job; NEED_FIELD otherwise. */
export type NativeConverter = (native: unknown) => unknown;

/** The converter of a column whose source has the same type on the same kind: it needs only the driver's value. */
export const PASS_THROUGH: Converter = (_f, native) => native ?? null;

export const TEXTUAL = new Set<LogicalType>(['text', 'uuid', 'date', 'time', 'timestamp', 'timestamptz']);
export const TRUE = new Set(['t', 'true', '1', 'yes', 'y', 'on']);
export const FALSE = new Set(['f', 'false', '0', 'no', 'n', 'off']);
export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Fractional seconds: digits after the seconds of a clock time. */
export const FRACTION = /:\d\d\.(\d+)/;
/** An integer of at most 15 digits in canonical spelling (no leading zeros, no `-0`). */
export const SHORT_INT = /^(?:0|-?[1-9]\d{0,14})$/;
/** A zone offset right after a clock time (`…03:04:05.5+02`, `…Z`); a negative duration (`-12:00:00`) is not one. */
export const OFFSET = /\d\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(?:Z|[+-]\d\d(?::?\d\d(?::?\d\d)?)?)$/i;

/** A value shown in a rejection: short, and never more than the start of a long text. */
export const show = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** The family of one value: the typed source column's, the class of a loose source's value, or undefined for JSON. */
export function familyOf(native: unknown, src: SourceColumn | undefined): LogicalType | undefined {
  if (!src) return undefined;
  if (!src.loose) return src.type;
  if (typeof native === 'bigint') return src.type === 'decimal' || src.type === 'bool' ? src.type : 'bigint';
  if (typeof native === 'number') return src.type === 'decimal' ? 'decimal' : 'float';
  if (Buffer.isBuffer(native)) return 'bytes';
  // SQLite does not check a column declared JSON: text there that does not parse is text ('abc' was the document "abc").
  if (src.type === 'json') return typeof native === 'string' && !isJson(native) ? 'text' : 'json';
  return src.type !== undefined && TEXTUAL.has(src.type) ? src.type : 'text';
}

export type Typed = (f: RawField, fam: LogicalType | undefined, native: unknown) => unknown;

export const normalType = (c: ColumnInfo): string => c.dbType.toLowerCase().replace(/\s+/g, ' ').replace(/ null$/, '');

/**
 * Columns of one kind whose values are interchangeable as the driver reads them. ENUM/SET stay
 * checked: MySQL stores '' for an invalid value, which strict mode refuses with an unhelpful text.
 */
export function sameType(a: ColumnInfo, b: ColumnInfo): boolean {
  return !a.labels && a.type === b.type && a.variant === b.variant && a.floatBits === b.floatBits && normalType(a) === normalType(b) && String(a.labels) === String(b.labels);
}

/** `2024-01-02T03:04:05.5+02:00` → `2024-01-02 01:04:05.5` (the same instant in UTC, without a zone). */
export function utcText(s: string): string {
  const rfc = toRfc3339(s);
  return rfc.endsWith('Z') ? rfc.slice(0, -1).replace('T', ' ') : s;
}
