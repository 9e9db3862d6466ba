import { configError } from '../../core/errors.js';
import type { KeyColumn } from '../sql/types.js';
import { mysqlColumnType } from './types.js';

/** InnoDB's limit on a key (DYNAMIC/COMPRESSED rows), counted on declared widths. */
export const KEY_BYTES = 3072;
/** utf8mb4, the charset bridge creates tables in: the key limit counts 4 bytes a character. */
const CHAR_BYTES = 4;

/** Fixed key widths of the types columnType makes (an overestimate where the storage varies). */
const FIXED: [RegExp, number][] = [
  [/^(TINYINT|YEAR|BOOL)/, 1],
  [/^SMALLINT/, 2],
  [/^(MEDIUMINT|DATE$)/, 3],
  [/^(INT|FLOAT)/, 4],
  [/^(BIGINT|DOUBLE|DATETIME|TIMESTAMP|SET)/, 8],
  [/^TIME/, 6],
  [/^ENUM/, 2],
];

/** Bytes a column of `type` counts for in a key; undefined for types no key can hold whole (TEXT, BLOB, JSON). */
export function keyBytes(type: string): number | undefined {
  const t = type.toUpperCase();
  const n = /\((\d+)(?:\s*,\s*(\d+))?\)/.exec(t);
  const width = n ? Number(n[1]) : 1;
  if (/^(VAR)?CHAR/.test(t)) return width * CHAR_BYTES;
  if (/^(VAR)?BINARY/.test(t)) return width;
  if (/^BIT/.test(t)) return Math.ceil(width / 8);
  // DECIMAL packs 9 digits in 4 bytes: at most p/2 + 1.
  if (/^DECIMAL/.test(t)) return Math.ceil(width / 2) + 1;
  return FIXED.find(([re]) => re.test(t))?.[1];
}

/**
 * The types of one key's columns sized to fit KEY_BYTES. Columns whose source declares a length
 * keep it; text and bytes columns without one (columnType gave them the widest a key takes) share
 * what the others leave, evenly. A key that cannot fit is a config error naming the table and the fix.
 */
export function fitKey(table: string, key: KeyColumn[]): string[] {
  const types = key.map((k) => k.type);
  const need = types.reduce((n, t) => n + (keyBytes(t) ?? 0), 0);
  if (need <= KEY_BYTES) return types;
  // Undeclared: the kind's own mapping would be LONGTEXT/LONGBLOB, which only the key made a VARCHAR/VARBINARY.
  const open = key.map((k) => /^LONG(TEXT|BLOB)$/.test(mysqlColumnType(k.src, k.untyped)));
  const fixed = types.reduce((n, t, i) => n + (open[i] ? 0 : (keyBytes(t) ?? 0)), 0);
  const shares = open.filter(Boolean).length;
  const share = shares ? Math.floor((KEY_BYTES - fixed) / shares) : 0;
  if (share < CHAR_BYTES)
    throw configError(
      `${table}: its key (${key.map((k) => k.name).join(', ')}) needs ${need} bytes in MySQL/MariaDB, which holds ${KEY_BYTES} bytes a key (utf8mb4 text counts 4 bytes a character): create ${table} yourself with shorter key columns (or a prefix index), then copy into it with columns=auto`,
    );
  return types.map((t, i) => {
    if (!open[i]) return t;
    return /^VARBINARY/i.test(t) ? `VARBINARY(${share})` : `VARCHAR(${Math.floor(share / CHAR_BYTES)})`;
  });
}
