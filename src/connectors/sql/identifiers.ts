import { createHash } from 'node:crypto';
import { configError } from '../../core/errors.js';

/**
 * What a table or schema name may hold: anything but the characters that separate names where
 * they are written (`.` schema from table, `,` list entries, `*` a pattern), a double quote, a
 * control character, or a space at either end (a list's entries are trimmed). Strangers' tables
 * are named "Order Details" (Northwind), `order-items`, "O'Brien's", "Straße".
 */
const NAME = /^(?=\S)[^.,*"\p{Cc}]+(?<=\S)$/u;

/**
 * Names are checked, then always quoted by the dialect (its quote character doubled) or bound as
 * parameters, never put in SQL as written: a name can never carry SQL.
 */
export function checkIdent(name: string, what: string, maxLength: number): string {
  if (!NAME.test(name)) throw configError(`${what} "${name}" cannot be named here: a name holds no dot, comma, *, double quote or control character and no space at either end (write schema.table for a table in a schema)`);
  if (name.length > maxLength) throw configError(`${what} "${name}" is longer than ${maxLength} characters`);
  return name;
}

/** Splits `schema.table` (at most one dot) and checks each part. */
export function splitTableName(name: string, maxLength: number): string[] {
  const parts = name.split('.');
  if (parts.length > 2) throw configError(`table "${name}" has more than one dot: write table or schema.table`);
  return parts.map((p) => checkIdent(p, 'table', maxLength));
}

/** Shortens a generated name to the dialect's limit with a stable hash suffix. */
export function fitName(name: string, maxLength: number): string {
  if (name.length <= maxLength) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, maxLength - 9)}_${hash}`;
}
