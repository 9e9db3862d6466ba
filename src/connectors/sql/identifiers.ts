import { createHash } from 'node:crypto';
import { configError } from '../../core/errors.js';

const IDENT = /^[\p{L}_][\p{L}\p{N}_$]*$/u;

/**
 * Identifiers are checked before they are quoted: anything but letters, digits, `_` and `$` is a
 * config error, so a table name can never carry SQL.
 */
export function checkIdent(name: string, what: string, maxLength: number): string {
  if (!IDENT.test(name)) throw configError(`${what} "${name}" is not a plain identifier: use letters, digits and _ (optionally schema.table)`);
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
