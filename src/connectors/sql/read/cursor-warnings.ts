import type { Database } from '../database.js';
import type { ColumnInfo } from '../types.js';

/**
 * Rows whose cursor value is NULL have no place in the order cursor paging reads by (`c > $1`
 * never holds for them): a copy said "done" without them. Counted once at the start (a copy reads
 * the whole table anyway) and said, with what to do; a column declared NOT NULL is not looked at.
 */
export async function warnNullCursor(db: Database, table: string, column: ColumnInfo, warn: (text: string) => void): Promise<void> {
  if (column.nullable === false) return;
  const d = db.dialect;
  const r = await db.query(`SELECT COUNT(*) FROM ${d.table(table)} WHERE ${d.quote(column.name)} IS NULL`);
  const n = Number(r.rows[0]?.[0] ?? 0);
  if (n > 0)
    warn(
      `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'} of ${table} ${n === 1 ? 'has' : 'have'} cursor_column ${column.name} NULL: cursor paging never reads ${n === 1 ? 'it' : 'them'} (NULL has no place in the order), and neither this run nor a later one delivers ${n === 1 ? 'it' : 'them'}. ` +
        `Give ${n === 1 ? 'it' : 'them'} a value (or follow another column, e.g. the primary key), or copy without --cursor-column`,
    );
}

/**
 * A uuid cursor followed over time (tail, cursor_id): random UUIDs (version 4) do not increase, so
 * a row added later whose uuid sorts below the position is never read (a tail by id delivered 1 of
 * 10 new rows). Time-ordered ones (version 7, 6) do; the newest value says which the table holds.
 */
export async function warnRandomUuidCursor(db: Database, table: string, column: ColumnInfo, warn: (text: string) => void): Promise<void> {
  if (column.type !== 'uuid') return;
  const d = db.dialect;
  const r = await db.query(`SELECT ${d.quote(column.name)} FROM ${d.table(table)} WHERE ${d.quote(column.name)} IS NOT NULL ORDER BY ${d.quote(column.name)} DESC${d.limit(1)}`);
  const version = String(r.rows[0]?.[0] ?? '').charAt(14);
  if (version === '' || version === '6' || version === '7') return;
  warn(
    `cursor_column ${column.name} of ${table} holds UUIDs of version ${version}, which do not increase: a row added later whose ${column.name} sorts below the position is never read. ` +
      `Follow a column that increases (a sequence, a creation time, UUIDv7), or capture changes (publication=)`,
  );
}
