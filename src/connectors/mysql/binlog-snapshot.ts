import type { Message } from '../../core/message.js';
import type { SourceBatch } from '../../core/route.js';
import { Wakeup } from '../../core/wakeup.js';
import type { BinlogPosition, CaptureStateStore, SnapshotProgress } from './binlog-position.js';
import type { CapturedTable } from './binlog-rows.js';
import { classifyMysql } from './driver.js';
import type { MysqlDialect } from './dialect.js';

type Conn = import('mysql2/promise').Connection;

/** A key value as kept in the progress (bytes as hex), and back as a query parameter. */
const keyParam = (v: unknown): unknown => (v && typeof v === 'object' && 'hex' in v ? Buffer.from(String((v as { hex: string }).hex), 'hex') : v);

/**
 * A consistent read of the captured tables, paired with the binlog position it joins. MariaDB:
 * START TRANSACTION WITH CONSISTENT SNAPSHOT, then the binlog_snapshot_file/position status, which
 * the server gives for exactly that snapshot (and its GTID position through BINLOG_GTID_POS): the
 * stream from there neither misses nor repeats a change. MySQL has no such status without a global
 * read lock (not taken): with gtid_mode=ON, @@gtid_executed is read just before the snapshot starts
 * — every transaction in it has committed in the engine, so the copy sees it, and those after it
 * are streamed, some also copied (a keyed mirror ends equal; said in a warning). Without GTIDs the
 * binlog's file:pos then is used, which a transaction written to the binlog but not yet committed
 * in the engine can fall before, unseen by the copy (said in a warning that names gtid_mode=ON).
 */
export class ConsistentRead {
  private constructor(
    private readonly conn: Conn,
    readonly join: BinlogPosition,
  ) {}

  static async open(cfg: Record<string, unknown>, mariadb: boolean, warn: (s: string) => void): Promise<ConsistentRead> {
    const mysql = (await import('mysql2/promise')).default;
    let conn: Conn;
    try {
      conn = await mysql.createConnection(cfg);
      conn.on('error', () => {});
      await conn.query("SET time_zone = '+00:00'");
      await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    } catch (e) {
      throw classifyMysql(e, true);
    }
    const q = async (sql: string, p: unknown[] = []): Promise<unknown[][]> => (await conn.query({ sql, rowsAsArray: true, values: p }))[0] as unknown[][];
    let before: BinlogPosition | undefined;
    if (!mariadb) {
      const [[mode, executed]] = (await q('SELECT @@GLOBAL.gtid_mode, @@GLOBAL.gtid_executed')) as [[string, string]];
      const gtids = String(mode).toUpperCase() === 'ON';
      before = gtids ? { gtid: String(executed).replace(/\s+/g, '') } : await binlogEnd(q, false);
      warn(
        gtids
          ? 'MySQL gives no binlog position paired with a snapshot (without a global read lock): the stream starts at the GTIDs executed just before it, so changes committed while it starts are copied and streamed again (a keyed mirror ends equal to the source)'
          : 'MySQL without gtid_mode=ON gives no position safely paired with a snapshot (without a global read lock): a transaction committing while the snapshot starts may be missed by both; set gtid_mode=ON (and enforce_gtid_consistency) for a snapshot without that gap',
      );
    }
    await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
    if (before) return new ConsistentRead(conn, before);
    const status = new Map((await q("SHOW STATUS LIKE 'binlog_snapshot_%'")).map((r) => [String(r[0]).toLowerCase(), String(r[1])]));
    const file = status.get('binlog_snapshot_file')!;
    const pos = Number(status.get('binlog_snapshot_position'));
    const [[gtid]] = (await q('SELECT BINLOG_GTID_POS(?, ?)', [file, pos])) as [[string | null]];
    // No GTID yet (a binlog without transactions): file:pos alone; '' would mean "the whole binlog" to the reader.
    return new ConsistentRead(conn, { file, pos, ...(gtid ? { gtid: String(gtid) } : {}) });
  }

  /** Up to `max` rows of `table` after the key `after`, in key order, with the values a plain copy reads. */
  async page(t: CapturedTable, dialect: MysqlDialect, after: unknown[] | undefined, max: number): Promise<unknown[][]> {
    const keys = t.info.primaryKey.map((k) => dialect.quote(k));
    const params: unknown[] = [];
    let where = '';
    if (after) {
      // (a > ?) OR (a = ? AND b > ?) …: MySQL uses the key's index for the expanded form.
      const ors = keys.map((k, i) => {
        const ands = keys.slice(0, i).map((p, j) => (params.push(keyParam(after[j])), `${p} = ?`));
        params.push(keyParam(after[i]));
        return `(${[...ands, `${k} > ?`].join(' AND ')})`;
      });
      where = ` WHERE ${ors.join(' OR ')}`;
    }
    const sql = `SELECT ${dialect.selectList(t.info)} FROM ${dialect.quote(t.name)}${where} ORDER BY ${keys.join(', ')} LIMIT ${max}`;
    return (await this.conn.query({ sql, rowsAsArray: true, values: params }))[0] as unknown[][];
  }

  async close(): Promise<void> {
    await this.conn.query('COMMIT').catch(() => {});
    await this.conn.end().catch(() => {});
  }
}

/** The binlog's end now: file:pos and (MariaDB) @@gtid_binlog_pos. */
export async function binlogEnd(q: (sql: string) => Promise<unknown[][]>, mariadb: boolean): Promise<BinlogPosition> {
  const rows = await q('SHOW MASTER STATUS').catch(() => q('SHOW BINARY LOG STATUS'));
  const [file, pos] = rows[0] ?? [];
  const out: BinlogPosition = file === undefined ? {} : { file: String(file), pos: Number(pos) };
  if (mariadb) {
    const [[gtid]] = (await q('SELECT @@GLOBAL.gtid_binlog_pos')) as [[string]];
    if (gtid) out.gtid = String(gtid);
  }
  return out;
}

/**
 * The snapshot as batches, table after table: each batch's ack saves the progress (table, last
 * key, the position it joins) so a run stopped at any moment resumes by table and key; the
 * snapshot is over once its last batch was confirmed.
 */
export class SnapshotPhase {
  private inFlight = 0;
  private readonly settledOne = new Wakeup();
  private copied = 0;
  private readonly order: CapturedTable[];

  constructor(
    private readonly read: ConsistentRead,
    tables: CapturedTable[],
    private readonly dialect: MysqlDialect,
    private readonly progress: SnapshotProgress,
    private readonly store: CaptureStateStore | undefined,
  ) {
    this.order = tables.filter((t) => !progress.done.includes(t.name));
  }

  /** The binlog position the snapshot joins: the stream starts there. */
  get join(): BinlogPosition {
    return this.progress.join;
  }

  get rowsCopied(): number {
    return this.copied;
  }

  /** A batch; 'wait' while the last ones are confirmed (call again); 'over' once all were. */
  async next(max: number, signal: AbortSignal): Promise<SourceBatch | 'wait' | 'over'> {
    const t = this.order[0];
    if (t) {
      const after = this.progress.table === t.name ? this.progress.after : undefined;
      const rows = await this.read.page(t, this.dialect, after, max);
      const done = [...this.progress.done];
      if (rows.length < max) {
        this.order.shift();
        done.push(t.name);
      }
      const last = rows[rows.length - 1];
      const key = last ? t.keyOf(last) : after;
      const saved: SnapshotProgress = { join: this.progress.join, done, ...(rows.length < max ? {} : { table: t.name, after: key }) };
      Object.assign(this.progress, { done, table: saved.table, after: saved.after });
      if (rows.length) return this.batch(t, rows, saved);
      if (this.store) await this.store.save({ snapshot: saved });
      return 'wait';
    }
    if (this.inFlight === 0) return 'over';
    await this.settledOne.wait(signal);
    return 'wait';
  }

  private batch(t: CapturedTable, rows: unknown[][], saved: SnapshotProgress): SourceBatch {
    const messages: Message[] = rows.map((values) => {
      const meta = { 'bridge.op': 'insert', 'bridge.table': t.name, 'bridge.snapshot': 'true' };
      return t.copied(values, meta, () => `mysql:${t.name}:copy:${JSON.stringify(t.keyOf(values))}`);
    });
    this.copied += rows.length;
    this.inFlight++;
    const settled = (): void => {
      this.inFlight--;
      this.settledOne.notify();
    };
    const ack = async (): Promise<void> => {
      try {
        await this.store?.save({ snapshot: saved });
      } finally {
        settled();
      }
    };
    const where = saved.table ? `${saved.table} key ${JSON.stringify(saved.after)}` : `${t.name} done`;
    return { messages, position: `initial snapshot, ${this.copied} rows (${where})`, ack, release: async () => settled() };
  }

  /** Ends the read; `stopped` is told where a snapshot stopped before its end (snapshot=only keeps no progress). */
  async close(stopped?: (text: string) => void): Promise<void> {
    if (this.order.length) stopped?.(`the initial snapshot stopped after reading ${this.copied} rows: ${this.store ? 'the next run resumes it' : 'snapshot=only keeps no progress, a new run copies again'}`);
    await this.read.close();
  }
}
