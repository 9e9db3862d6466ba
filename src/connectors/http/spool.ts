import { crc32 } from 'node:zlib';
import { mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { configError } from '../../core/errors.js';
import { Message } from '../../core/message.js';

/** Messages held in one segment file, and how many of them the sink has not confirmed yet. */
interface Segment {
  n: number;
  file: string;
  fh: FileHandle | undefined;
  /** The segment's confirmations: record numbers, 4 bytes each, written (not fsynced) as the sink confirms. */
  ackFh: FileHandle | undefined;
  bytes: number;
  /** Records appended (the next record's number). */
  count: number;
  unconfirmed: number;
  sealed: boolean;
}

const ackFile = (file: string): string => file.replace(/\.log$/, '.ack');

/** The record numbers an ack file lists (a torn last entry is ignored). */
async function confirmedIn(file: string): Promise<Set<number>> {
  const buf = await readFile(ackFile(file)).catch(() => Buffer.alloc(0));
  const out = new Set<number>();
  for (let i = 0; i + 4 <= buf.length; i += 4) out.add(buf.readUInt32LE(i));
  return out;
}

/** Segments roll over at this size (or age), so confirmed ones are deleted soon and a replay repeats little. */
const SEGMENT_BYTES = 4 * 1024 * 1024;
const SEGMENT_MS = 1000;

/** One record: length, CRC-32, then the message as JSON (id, metadata, payload as text or base64). */
function encode(m: Message): Buffer {
  const p = m.payload;
  const body = Buffer.from(JSON.stringify({ id: m.idHex, metadata: m.metadata, ...(typeof p === 'string' ? { text: p } : { base64: p.toString('base64') }), json: m.isJson, ...(m.isText ? { textual: true } : {}) }));
  const head = Buffer.allocUnsafe(8);
  head.writeUInt32LE(body.length, 0);
  head.writeUInt32LE(crc32(body), 4);
  return Buffer.concat([head, body]);
}

/** The records of a segment up to the first torn or corrupt one (a write cut short by a crash). */
function decode(buf: Buffer): Message[] {
  const out: Message[] = [];
  for (let i = 0; i + 8 <= buf.length; ) {
    const len = buf.readUInt32LE(i);
    if (i + 8 + len > buf.length) break;
    const body = buf.subarray(i + 8, i + 8 + len);
    if (crc32(body) !== buf.readUInt32LE(i + 4)) break;
    const r = JSON.parse(body.toString('utf8')) as { id: string; metadata?: Record<string, string>; text?: string; base64?: string; json: boolean; textual?: boolean };
    const m = new Message(r.text ?? Buffer.from(r.base64 ?? '', 'base64'), r.metadata, undefined, BigInt(`0x${r.id}`));
    m.isJson = r.json;
    m.isText = r.textual === true;
    out.push(m);
    i += 8 + len;
  }
  return out;
}

/**
 * fire_and_forget's durability: a message is appended to a local segment file and fsynced before
 * its 202 (appends that arrive while one fsync runs share the next: group commit). Segments are
 * deleted once every message in them is confirmed by the sink, and replayed at start: a `kill -9`
 * loses nothing that was answered 202 (what was confirmed but not yet deleted may come again, with
 * the same id). The spool is bounded: past `maxBytes` of unconfirmed segments, new requests get 503.
 */
export class Spool {
  private readonly segments: Segment[] = [];
  private active: Segment | undefined;
  private next = 0;
  private pending: { record: Buffer; segment: Segment; done: (e?: unknown) => void }[] = [];
  /** The group commit under way, if any. */
  private flushing: Promise<void> | undefined;
  private openedAt = 0;
  private readonly owner = new WeakMap<Message, { seg: Segment; index: number }>();

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  /** Opens the directory; returns the messages an earlier run accepted and did not see confirmed. */
  async open(): Promise<Message[]> {
    try {
      await mkdir(this.dir, { recursive: true });
    } catch (e) {
      throw configError(`spool_dir ${this.dir} cannot be created: ${(e as Error).message}`);
    }
    const all = await readdir(this.dir);
    const names = all.filter((f) => /^spool-\d+\.log$/.test(f)).sort((a, b) => Number(a.slice(6, -4)) - Number(b.slice(6, -4)));
    // Acks of a deleted log (a crash between the two deletes) must not apply to a new segment of that number.
    for (const f of all) if (/^spool-\d+\.ack$/.test(f) && !all.includes(f.replace(/\.ack$/, '.log'))) await rm(path.join(this.dir, f), { force: true });
    const replay: Message[] = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      const buf = await readFile(file);
      const confirmed = await confirmedIn(file);
      const records = decode(buf);
      const n = Number(name.slice(6, -4));
      this.next = Math.max(this.next, n + 1);
      const seg: Segment = { n, file, fh: undefined, ackFh: undefined, bytes: buf.length, count: records.length, unconfirmed: 0, sealed: true };
      records.forEach((m, index) => {
        if (confirmed.has(index)) return;
        seg.unconfirmed++;
        this.owner.set(m, { seg, index });
        replay.push(m);
      });
      if (seg.unconfirmed === 0) await this.remove(seg);
      else this.segments.push(seg);
    }
    return replay;
  }

  /** Bytes of segments not yet confirmed (for the 503 limit). */
  get size(): number {
    return this.segments.reduce((s, x) => s + x.bytes, 0);
  }

  get full(): boolean {
    return this.size >= this.maxBytes;
  }

  /** Appends a message durably: resolves once it is on disk (fsynced). */
  async append(m: Message): Promise<void> {
    const seg = await this.segment();
    const record = encode(m);
    seg.bytes += record.length;
    seg.unconfirmed++;
    this.owner.set(m, { seg, index: seg.count++ });
    await new Promise<void>((resolve, reject) => {
      this.pending.push({ record, segment: seg, done: (e) => (e ? reject(e) : resolve()) });
      this.flushing ??= this.flush();
    });
  }

  private async segment(): Promise<Segment> {
    const a = this.active;
    if (a && !a.sealed && a.bytes < SEGMENT_BYTES && Date.now() - this.openedAt < SEGMENT_MS) return a;
    if (a) a.sealed = true;
    const n = this.next++;
    const file = path.join(this.dir, `spool-${n}.log`);
    const seg: Segment = { n, file, fh: await open(file, 'a'), ackFh: undefined, bytes: 0, count: 0, unconfirmed: 0, sealed: false };
    this.segments.push(seg);
    this.active = seg;
    this.openedAt = Date.now();
    if (a) await this.release(a);
    return seg;
  }

  /** Writes what is pending, one fsync per segment touched, then answers every waiting append. */
  private async flush(): Promise<void> {
    try {
      while (this.pending.length) {
        const batch = this.pending.splice(0);
        try {
          const bySegment = new Map<Segment, Buffer[]>();
          for (const p of batch) {
            const records = bySegment.get(p.segment);
            if (records) records.push(p.record);
            else bySegment.set(p.segment, [p.record]);
          }
          for (const [seg, records] of bySegment) {
            const fh = seg.fh ?? (seg.fh = await open(seg.file, 'a'));
            await fh.write(Buffer.concat(records));
            await fh.datasync();
          }
          for (const p of batch) p.done();
        } catch (e) {
          for (const p of batch) p.done(e);
        }
      }
    } finally {
      // In the same turn as the last check of `pending`: an append after it starts a new flush.
      this.flushing = undefined;
    }
  }


  /**
   * The sink confirmed these messages: their record numbers go to the segment's ack file (a write,
   * no fsync: it survives a kill -9, and losing it to a power cut only repeats messages), so a replay
   * skips them; a sealed segment with nothing left unconfirmed is deleted.
   */
  async confirm(messages: Message[]): Promise<void> {
    const bySegment = new Map<Segment, number[]>();
    for (const m of messages) {
      const o = this.owner.get(m);
      if (!o) continue;
      this.owner.delete(m);
      o.seg.unconfirmed--;
      const indexes = bySegment.get(o.seg);
      if (indexes) indexes.push(o.index);
      else bySegment.set(o.seg, [o.index]);
    }
    for (const [seg, indexes] of bySegment) {
      if (seg.sealed && seg.unconfirmed === 0) {
        await this.release(seg);
        continue;
      }
      if (!this.segments.includes(seg)) continue;
      const buf = Buffer.allocUnsafe(indexes.length * 4);
      indexes.forEach((x, i) => buf.writeUInt32LE(x, i * 4));
      try {
        const fh = seg.ackFh ?? (seg.ackFh = await open(ackFile(seg.file), 'a'));
        await fh.write(buf);
      } catch {
        // Only a repeat after a crash is at stake, not the delivery being confirmed.
      }
    }
  }

  private async release(seg: Segment): Promise<void> {
    if (!seg.sealed || seg.unconfirmed > 0) return;
    const i = this.segments.indexOf(seg);
    if (i < 0) return;
    this.segments.splice(i, 1);
    await this.remove(seg);
  }

  private async remove(seg: Segment): Promise<void> {
    await seg.fh?.close().catch(() => {});
    await seg.ackFh?.close().catch(() => {});
    // The log first: an ack file without its log is ignored, a log without its acks would replay.
    await rm(seg.file, { force: true });
    await rm(ackFile(seg.file), { force: true });
  }

  async close(): Promise<void> {
    await this.flushing;
    for (const s of this.segments) {
      await s.fh?.close().catch(() => {});
      await s.ackFh?.close().catch(() => {});
    }
  }
}
