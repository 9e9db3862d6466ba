import { rejectedError } from '../../core/errors.js';
import type { Group } from '../sql/write/write-columns.js';

/** Room in a packet for the statement's own text (INSERT … ON DUPLICATE KEY UPDATE, column names). */
const TEXT_ROOM = 64 * 1024;

/**
 * An upper bound of a value's bytes in a statement mysql2 writes: a string's UTF-8 (3 bytes a UTF-16
 * unit at most) with every character escaped, bytes as hex. Cheap: no pass over the text.
 */
function bound(v: unknown): number {
  if (typeof v === 'string') return v.length * 4 + 2;
  if (Buffer.isBuffer(v)) return v.length * 2 + 3;
  return 48;
}

/** Characters mysql2's escaping doubles (a backslash before each). */
const ESCAPED = new Set([0, 8, 9, 10, 13, 26, 34, 39, 92]);

/** A value's bytes as mysql2 writes it into a statement, exactly: UTF-8 with its escapes, bytes as X'hex'. Only for the rows over the bound. */
function exact(v: unknown): number {
  if (Buffer.isBuffer(v)) return v.length * 2 + 3;
  if (typeof v !== 'string') return bound(v);
  let escapes = 0;
  for (let i = 0; i < v.length; i++) if (ESCAPED.has(v.charCodeAt(i))) escapes++;
  return Buffer.byteLength(v) + escapes + 2;
}

/**
 * The groups cut so that no INSERT is longer than the server's max_allowed_packet (`limit`): the
 * server closes the connection on one that is (ER_NET_PACKET_TOO_LARGE), which read as a network
 * failure retried the same batch until the run failed. A row that alone cannot fit is rejected,
 * naming its largest value (it goes to the dead-letter endpoint, or the run exits 4).
 */
export function fitPackets(groups: Group[], limit: number): Group[] {
  const room = Math.max(1024, limit - TEXT_ROOM);
  const out: Group[] = [];
  for (const g of groups) {
    let part: Group = { cols: g.cols, rows: [] };
    let bytes = 0;
    for (const r of g.rows) {
      let size = 2;
      for (const v of r.values) size += bound(v) + 1;
      if (size > room) tooLong(g, r, room);
      if (bytes + size > room && part.rows.length) {
        out.push(part);
        part = { cols: g.cols, rows: [] };
        bytes = 0;
      }
      part.rows.push(r);
      bytes += size;
    }
    if (part.rows.length) out.push(part);
  }
  return out;
}

/** A row whose bound is over the room: rejected when its values alone are; else it goes in a statement of its own. */
function tooLong(g: Group, r: Group['rows'][number], room: number): void {
  const sizes = r.values.map(exact);
  const total = sizes.reduce((a, b) => a + b + 1, 0);
  if (total <= room) return;
  const largest = sizes.indexOf(Math.max(...sizes));
  const id = r.m ? `message ${r.m.idHex}: ` : '';
  throw rejectedError(
    `${id}field ${g.cols[largest]!.name} is ${sizes[largest]!.toLocaleString('en-US')} bytes in an INSERT: the server takes no statement longer than max_allowed_packet (${(room + TEXT_ROOM).toLocaleString('en-US')} bytes); raise it (SET GLOBAL max_allowed_packet = …) to write this row`,
    undefined,
    r.m?.idHex,
  );
}
