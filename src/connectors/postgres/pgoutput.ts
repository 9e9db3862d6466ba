/** LSNs as 64-bit numbers, shown the PostgreSQL way (`16/B374D848`). */
export const formatLsn = (lsn: bigint): string => `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;

/** Messages that carry their transaction's xid when they come inside a stream block: R, Y, I, U, D, T, M. */
const STREAMED_XID = new Set([0x52, 0x59, 0x49, 0x55, 0x44, 0x54, 0x4d]);

/** The xid of a change inside a stream block (a subtransaction's own, for its changes). */
export const streamedXid = (buf: Buffer): number => buf.readInt32BE(1);

export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

export interface RelationColumn {
  name: string;
  typeOid: number;
  /** The type modifier (varchar's length, numeric's precision), -1 if none. */
  typmod: number;
  /** Part of the replica identity (the key sent with deletes). */
  key: boolean;
}

export interface Relation {
  id: number;
  schema: string;
  name: string;
  columns: RelationColumn[];
}

/** A tuple's values as the server's text; undefined = unchanged TOAST value (not sent). */
export type Tuple = (string | null | undefined)[];

export type PgOutputMessage =
  | { tag: 'begin'; finalLsn: bigint; xid: number }
  | { tag: 'commit'; commitLsn: bigint; endLsn: bigint }
  | { tag: 'relation'; relation: Relation }
  | { tag: 'insert'; relationId: number; row: Tuple }
  | { tag: 'update'; relationId: number; old: Tuple | undefined; row: Tuple }
  | { tag: 'delete'; relationId: number; old: Tuple; full: boolean }
  | { tag: 'truncate'; relationIds: number[] }
  // Protocol 2 with streaming on: an in-progress transaction's changes, in blocks (start … stop), then its commit or abort.
  | { tag: 'stream-start'; xid: number; first: boolean }
  | { tag: 'stream-stop' }
  | { tag: 'stream-commit'; xid: number; commitLsn: bigint; endLsn: bigint }
  | { tag: 'stream-abort'; xid: number; subxid: number }
  | { tag: 'other' };

/**
 * Decodes pgoutput (PostgreSQL's logical replication plugin), protocol 1, and 2's streamed
 * transactions: inside a stream block (`inBlock`) every change, relation and type message carries
 * the (sub)transaction's xid after its tag, which is skipped (the block's start names the
 * transaction). Values stay the server's text so they render by the same rules as every other read
 * (decisions §4).
 */
export function decodePgOutput(buf: Buffer, inBlock = false): PgOutputMessage {
  let pos = inBlock && STREAMED_XID.has(buf[0]!) ? 5 : 1;
  const u8 = (): number => buf[pos++]!;
  const i16 = (): number => {
    const v = buf.readInt16BE(pos);
    pos += 2;
    return v;
  };
  const i32 = (): number => {
    const v = buf.readInt32BE(pos);
    pos += 4;
    return v;
  };
  const u64 = (): bigint => {
    const v = buf.readBigUInt64BE(pos);
    pos += 8;
    return v;
  };
  const cstr = (): string => {
    const end = buf.indexOf(0, pos);
    const s = buf.toString('utf8', pos, end);
    pos = end + 1;
    return s;
  };
  const tuple = (): Tuple => {
    const n = i16();
    const out: Tuple = new Array(n);
    for (let i = 0; i < n; i++) {
      const kind = u8();
      if (kind === 0x6e) out[i] = null; // n
      else if (kind === 0x75) out[i] = undefined; // u: unchanged TOAST
      else {
        const len = i32();
        out[i] = buf.toString('utf8', pos, pos + len); // t (binary is never requested)
        pos += len;
      }
    }
    return out;
  };
  switch (buf[0]) {
    case 0x42: {
      const finalLsn = u64();
      u64(); // commit timestamp
      return { tag: 'begin', finalLsn, xid: i32() };
    }
    case 0x43: {
      u8(); // flags
      const commitLsn = u64();
      return { tag: 'commit', commitLsn, endLsn: u64() };
    }
    case 0x52: {
      const id = i32();
      const schema = cstr();
      const name = cstr();
      u8(); // replica identity setting
      const n = i16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < n; i++) {
        const flags = u8();
        const colName = cstr();
        const typeOid = i32();
        const typmod = i32();
        columns.push({ name: colName, typeOid, typmod, key: (flags & 1) === 1 });
      }
      return { tag: 'relation', relation: { id, schema, name, columns } };
    }
    case 0x49: {
      const relationId = i32();
      u8(); // 'N'
      return { tag: 'insert', relationId, row: tuple() };
    }
    case 0x55: {
      const relationId = i32();
      let kind = u8();
      let old: Tuple | undefined;
      if (kind === 0x4b || kind === 0x4f) {
        old = tuple();
        kind = u8();
      }
      return { tag: 'update', relationId, old, row: tuple() };
    }
    case 0x44: {
      const relationId = i32();
      const kind = u8();
      return { tag: 'delete', relationId, old: tuple(), full: kind === 0x4f };
    }
    case 0x54: {
      const n = i32();
      u8(); // options
      const relationIds: number[] = [];
      for (let i = 0; i < n; i++) relationIds.push(i32());
      return { tag: 'truncate', relationIds };
    }
    case 0x53: {
      const xid = i32();
      return { tag: 'stream-start', xid, first: u8() === 1 };
    }
    case 0x45:
      return { tag: 'stream-stop' };
    case 0x63: {
      const xid = i32();
      u8(); // flags
      const commitLsn = u64();
      return { tag: 'stream-commit', xid, commitLsn, endLsn: u64() };
    }
    case 0x41: {
      const xid = i32();
      return { tag: 'stream-abort', xid, subxid: i32() };
    }
    default:
      return { tag: 'other' };
  }
}
