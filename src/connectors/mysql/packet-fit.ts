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

/** A value's own bytes, exactly (what no statement can be shorter than). */
const exact = (v: unknown): number => (typeof v === 'string' ? Buffer.byteLength(v) : Buffer.isBuffer(v) ? v.length : 0);

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
      let size = 0;
      for (const v of r.values) size += bound(v);
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
  let total = 0;
  let largest = 0;
  for (let k = 0; k < r.values.length; k++) {
    const n = exact(r.values[k]);
    total += n;
    if (n > exact(r.values[largest])) largest = k;
  }
  if (total <= room) return;
  const name = g.cols[largest]!.name;
  throw rejectedError(
    `field ${name} is ${exact(r.values[largest]).toLocaleString('en-US')} bytes: the server takes no statement longer than max_allowed_packet (${(room + TEXT_ROOM).toLocaleString('en-US')} bytes); raise it (SET GLOBAL max_allowed_packet = …) to write this row`,
    undefined,
    r.m?.idHex,
  );
}
