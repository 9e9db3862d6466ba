import { rejectedError } from '../../../core/errors.js';
import type { Message } from '../../../core/message.js';
import type { Group } from './write-mirror.js';

/**
 * Statements cut to the server's longest (Database.statementLimit: MySQL/MariaDB max_allowed_packet,
 * 16 MB by default). The server closes the connection on a longer one (ER_NET_PACKET_TOO_LARGE),
 * which reads as a network failure: the same batch was retried until the run failed (exit 3, no
 * row). A row that alone cannot fit is rejected, naming its largest value.
 */

/** Room for the statement's own text (INSERT … ON DUPLICATE KEY UPDATE, column names). */
const TEXT_ROOM = 64 * 1024;

/**
 * An upper bound of a value's bytes in a statement the driver writes as text: a string's UTF-8 (3
 * bytes a UTF-16 unit at most) with every character escaped, bytes as hex. Cheap: no pass over the text.
 */
function bound(v: unknown): number {
  if (typeof v === 'string') return v.length * 4 + 2;
  if (Buffer.isBuffer(v)) return v.length * 2 + 3;
  return 48;
}

/** Characters the driver's escaping doubles (a backslash before each). */
const ESCAPED = new Set([0, 8, 9, 10, 13, 26, 34, 39, 92]);

/** A value's bytes as the driver writes it into a statement, exactly: UTF-8 with its escapes, bytes as X'hex'. Only for the rows over the bound. */
function exact(v: unknown): number {
  if (Buffer.isBuffer(v)) return v.length * 2 + 3;
  if (typeof v !== 'string') return bound(v);
  let escapes = 0;
  for (let i = 0; i < v.length; i++) if (ESCAPED.has(v.charCodeAt(i))) escapes++;
  return Buffer.byteLength(v) + escapes + 2;
}

/**
 * `items` (rows, messages) in runs whose values together fit in one statement of `limit` bytes.
 * An item over the bound goes alone when its exact size fits, and is rejected when it does not.
 */
export function cutToFit<T>(items: T[], values: (item: T) => readonly unknown[], names: (item: T) => readonly string[], message: (item: T) => Message | undefined, limit: number): T[][] {
  const room = Math.max(1024, limit - TEXT_ROOM);
  const out: T[][] = [];
  let part: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const vs = values(item);
    let size = 2;
    for (const v of vs) size += bound(v) + 1;
    if (size > room) tooLong(vs, names(item), message(item), room);
    if (bytes + size > room && part.length) {
      out.push(part);
      part = [];
      bytes = 0;
    }
    part.push(item);
    bytes += size;
  }
  if (part.length) out.push(part);
  return out;
}

/** Groups of converted rows cut to fit (see cutToFit). */
export function fitRows(groups: Group[], limit: number): Group[] {
  return groups.flatMap((g) =>
    cutToFit(
      g.rows,
      (r) => r.values,
      () => g.cols.map((c) => c.name),
      (r) => r.m,
      limit,
    ).map((rows) => ({ cols: g.cols, rows })),
  );
}

/** A row whose bound is over the room: rejected when its values alone are; else it goes in a statement of its own. */
function tooLong(values: readonly unknown[], names: readonly string[], m: Message | undefined, room: number): void {
  const sizes = values.map(exact);
  const total = sizes.reduce((a, b) => a + b + 1, 0);
  if (total <= room) return;
  const largest = sizes.indexOf(Math.max(...sizes));
  throw rejectedError(
    `${m ? `message ${m.idHex}: ` : ''}field ${names[largest]} is ${sizes[largest]!.toLocaleString('en-US')} bytes in an INSERT: the server takes no statement longer than max_allowed_packet (${(room + TEXT_ROOM).toLocaleString('en-US')} bytes); raise it (SET GLOBAL max_allowed_packet = …) to write this row`,
    undefined,
    m?.idHex,
  );
}
