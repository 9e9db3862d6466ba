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
