import { BridgeError } from '../../core/errors.js';
import { unreadBytes } from '../../core/utf8.js';

/**
 * SQLite keeps TEXT as it was given, unchecked: a program that wrote Latin-1 or cut a UTF-8
 * sequence through the C API leaves bytes that are not UTF-8. better-sqlite3 decodes every TEXT
 * value as UTF-8 and puts U+FFFD in place of such bytes, so the value would reach the sink changed
 * ('café' in Latin-1 became 'caf\uFFFD', exit 0). Only a value holding U+FFFD can be one of them;
 * its bytes (CAST(… AS BLOB)) tell a replacement from a real U+FFFD, which is written ef bf bd.
 */
const REPLACEMENT = '\uFFFD';

/** [row, column] of every string holding U+FFFD: rare, and the only values whose bytes need reading. */
export function suspectCells(rows: readonly unknown[][]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let j = 0; j < row.length; j++) {
      const v = row[j];
      if (typeof v === 'string' && v.includes(REPLACEMENT)) out.push([i, j]);
    }
  }
  return out;
}

/**
 * The same statement's values as bytes: its columns renamed by position (a result may repeat a
 * name), each cast to BLOB, in the statement's own order.
 */
export function bytesSql(sql: string, width: number): string {
  const names = Array.from({ length: width }, (_, i) => `c${i}`);
  // A statement ending in ';' or a '-- comment' would swallow the closing parenthesis.
  const body = sql.replace(/[\s;]+$/, '');
  return `WITH bridge_q(${names.join(', ')}) AS (${body}\n) SELECT ${names.map((n) => `CAST(${n} AS BLOB)`).join(', ')} FROM bridge_q`;
}

/** Whether the bytes are the text in the database's encoding: UTF-8, or UTF-16 (PRAGMA encoding) in either order. */
function sameText(bytes: Buffer, text: string): boolean {
  if (bytes.equals(Buffer.from(text, 'utf8'))) return true;
  const le = Buffer.from(text, 'utf16le');
  return bytes.equals(le) || bytes.equals(Buffer.from(le).swap16());
}

/**
 * Throws exit 4 naming the field when a suspect value's bytes are not the UTF-8 of what was read.
 * `again` is the statement's rows read again as bytes (bytesSql), or undefined when that failed or
 * found other rows: a suspect value is then refused too, as it cannot be told from a changed one.
 */
export function refuseReplaced(
  rows: readonly unknown[][],
  cells: readonly [number, number][],
  again: readonly unknown[][] | undefined,
  fieldOf: (column: number) => { name: string; table: string | null },
): void {
  const same = again !== undefined && again.length === rows.length;
  for (const [i, j] of cells) {
    const text = rows[i]![j] as string;
    const bytes = same ? again[i]![j] : undefined;
    if (Buffer.isBuffer(bytes) && sameText(bytes, text)) continue;
    const { name, table } = fieldOf(j);
    const shown = Buffer.isBuffer(bytes) ? ` (bytes ${unreadBytes(bytes, text)})` : ' (U+FFFD, and its bytes could not be read again to tell whether they are)';
    // The row, by its first column when that is a number (the rowid or key a reader selects first).
    const first = rows[i]![0];
    const row = j > 0 && (typeof first === 'bigint' || typeof first === 'number') ? ` in the row whose ${fieldOf(0).name} is ${first}` : '';
    throw new BridgeError(
      'input',
      `SQLite${table ? ` table ${table}` : ''}: field ${name} holds text that is not UTF-8${shown}${row}; read as text it would become ${JSON.stringify(text.slice(0, 40))}. ` +
        "Fix the value in the source (UPDATE … SET col = CAST(x'…' AS TEXT) with its UTF-8 bytes), or read the column as bytes through a view that selects CAST(col AS BLOB)",
    );
  }
}
