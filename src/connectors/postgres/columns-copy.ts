import { BridgeError } from '../../core/errors.js';
import type { DescribedTable, PlanItem } from '../../core/route.js';
import type { Message } from '../../core/message.js';
import type { RowSet } from '../../core/row-set.js';
import { SqlRowSet } from '../sql/row-set.js';
import type { SourceColumn } from '../sql/values/bind.js';
import type { ColumnInfo } from '../sql/types.js';
import { ColumnsWriter, type ChangeStep, type Group, type Segment } from '../sql/write/write-columns.js';
import { flaggedRows } from './change-merge.js';
import { hasChanges } from '../sql/write/write-mirror.js';
import { EncodedAhead } from './encoded-ahead.js';
import type { RowIntake } from '../sql/write/writer.js';
import { chunked } from './copy-encoder.js';
import { ChunkPool } from '../sql/write/chunk-buffer.js';
import { copyOutPool } from './copy-stream.js';
import { copyChunks, copyRows } from './copy-text.js';
import { BINARY_HEAD, BINARY_TAIL } from './copy-out.js';
import { binaryEncoders, CopyBinaryEncoder } from './copy-binary.js';
import { CopyAppender, type SessionLimits } from './copy-session.js';
import { COPY_FROM } from './default-copy.js';
import { upsertSql } from './upsert-merge.js';
import type { PgConnection } from './driver.js';

/**
 * An open COPY takes up to 8 batches (16k rows of 2,048) or 32 MB, and is ended after 50 ms without
 * a batch. Measured on 1M rows MariaDB -> PostgreSQL: 16 batches 6.4 s, 4 batches 6.6 s, a COPY
 * per batch 7.1 s; SQLite -> PostgreSQL at the same speed with 8 and 16, peak RSS 174-181 MB with 8
 * against 177-206 MB with 16 (a fast source keeps every batch in flight encoded, waiting its turn).
 */
const SESSION: SessionLimits = { batches: 8, bytes: 32 * 1024 * 1024, idleMs: 50 };

const encode = (g: Group): Buffer[] => chunked(g.rows, (r) => r.values, (r) => r.m);

/**
 * columns=auto on PostgreSQL through COPY: rows are appended with `COPY t (cols) FROM STDIN`; with
 * key they are copied into a temporary table and merged with one `INSERT … SELECT … ON CONFLICT DO
 * UPDATE`, in one transaction per batch. Same conversions as the INSERT path (COPY runs each
 * column's input function, as the casts of the INSERT path do), several times faster.
 */
export class PgColumnsWriter extends ColumnsWriter {
  private appender: CopyAppender | undefined;
  /** The encoders' 256 KB Buffers, reused once their COPY committed: about the batches in flight (17 of ~3 each). */
  private readonly pool = new ChunkPool(64);

  /** Batches of changes read ahead, encoded while the batch before is merged (EncodedAhead). */
  private readonly early = new EncodedAhead((messages: Message[]) => {
    const groups = this.groups(messages);
    return { groups, text: groups.map(encode) };
  });

  override ahead(messages: Message[]): void {
    if (this.key && messages.length >= COPY_FROM && messages[0]!.metadata?.['bridge.op'] && !hasChanges(messages) && !messages.some((m) => m.metadata?.['bridge.op'] === 'schema')) this.early.add(messages);
  }

  override async write(messages: Message[]): Promise<void> {
    const ready = this.early.take(messages);
    if (!ready) return super.write(messages);
    await this.loadEncoded(ready.groups, ready.text);
    this.countLossy(ready.groups.flatMap((g) => g.rows));
  }

  /** Appends commute, upserts do not: with a key, batches load one after another. */
  get concurrency(): number {
    return this.key ? 1 : 2;
  }

  flush(waiting?: boolean): void {
    this.appender?.flush(waiting);
  }

  /**
   * Converted row batches share open COPYs (CopyAppender): two COPYs' worth may be in flight, one
   * committing while the next fills. Rows of a PostgreSQL table appended unchanged come as
   * 16k-row ranges, each a COPY, taken in binary when every column is of a built-in type (the same
   * value, and the server skips parsing text: ~20 % of a load); types of extensions, enums and
   * arrays of them stay text, as their binary form may differ between databases (an array's
   * element type OID).
   */
  async rowsFrom(source: DescribedTable | undefined): Promise<RowIntake> {
    if (this.key) return {};
    if (!this.appendsUnchanged(source)) {
      // Asked now, not with the first batch: a synchronous source (SQLite) reads and encodes a
      // dozen batches before the answer gets a turn of the event loop, and none is sent meanwhile.
      await this.sessionIsUtc();
      return { concurrency: SESSION.batches * 2 + 1 };
    }
    const builtIn = source!.columns.every((c) => c.kind === 'postgres' && (c.detail as SourceColumn | undefined)?.col.castType !== undefined);
    return builtIn ? { wireFormat: 'binary' } : {};
  }

  /**
   * Rows of a SQL table appended through an open COPY (CopyAppender): ranges a PostgreSQL table
   * gave in COPY format go in as they are when every column keeps its type; other rows are
   * converted column by column into COPY text. Either way the batch lets go of what it holds once
   * sent (SqlRowSet.release). A COPY the server refuses fails every batch in it: each is then read
   * again and written alone, so only the batch holding the refused row goes the message way,
   * which names it.
   */
  override async writeRows(set: RowSet): Promise<boolean> {
    if (!(set instanceof SqlRowSet) || this.key) return super.writeRows(set);
    const wire = set.wire;
    const targets = wire?.kind === 'postgres' ? this.rows.passThrough(set.shape) : undefined;
    if (wire && targets) {
      // A range is a COPY's worth already (16k rows): two load at once. Ranges streamed one after another into one COPY took the server more CPU.
      const { chunks, format } = wire;
      set.release();
      try {
        await this.db.atomicLoad((c, wrap) => copyRows(c as PgConnection, this.copySql(targets), chunks, format === 'binary', wrap));
        copyOutPool.give(chunks);
        return true;
      } catch (e) {
        if (!(e instanceof BridgeError) || e.kind !== 'rejected') throw e;
        return this.writeConverted(set, true);
      }
    }
    return this.writeConverted(set, false);
  }

  /**
   * Rows converted column by column and appended through an open COPY, or (`alone`) in a COPY of
   * their own: in binary when every target column has a binary encoder and every value of the
   * batch takes it (the server then parses no text: ~20 % of its CPU in a load), else as text.
   */
  private async writeConverted(set: SqlRowSet, alone: boolean): Promise<boolean> {
    const cols = set.count >= COPY_FROM ? this.rows.columnsOf(set.shape) : undefined;
    if (!cols) return super.writeRows(set);
    const encoders = await this.binaryEncodersOf(cols);
    let lossy = 0;
    let binary = false;
    const encode = async (): Promise<Buffer[]> => {
      await set.restore();
      const out: unknown[] = [];
      const rows = set.arrays();
      lossy = 0;
      let chunks: Buffer[] | undefined;
      if (encoders) {
        const enc = new CopyBinaryEncoder(encoders, this.pool);
        let ok = true;
        for (let i = 0; ok && i < rows.length; i++) {
          lossy += this.rows.valuesInto(set.shape, rows[i]!, out);
          ok = enc.row(out);
        }
        if (ok) chunks = enc.finish();
        else lossy = 0;
      }
      binary = chunks !== undefined;
      chunks ??= chunked(rows, (row) => {
        lossy += this.rows.valuesInto(set.shape, row, out);
        return out;
      }, undefined, this.pool);
      set.release();
      return chunks;
    };
    const once = async (): Promise<void> => {
      const chunks = await encode();
      await this.db.atomicLoad((c, wrap) => copyRows(c as PgConnection, this.copySql(cols), chunks, binary, wrap));
      this.pool.give(chunks);
    };
    if (alone) await once();
    else
      try {
        const chunks = await encode();
        await (this.appender ??= new CopyAppender(this.db, SESSION)).append(this.copySql(cols) + (binary ? ' (FORMAT binary)' : ''), chunks, binary ? { head: BINARY_HEAD, tail: BINARY_TAIL } : undefined);
        this.pool.give(chunks);
      } catch (e) {
        if (!(e instanceof BridgeError) || e.kind !== 'rejected') throw e;
        await once();
      }
    this.lossyWritten(lossy);
    return true;
  }

  private readonly binaryPlans = new WeakMap<ColumnInfo[], ReturnType<typeof binaryEncoders> | null>();
  private sessionUtc: Promise<boolean> | undefined;

  /** The binary encoders of a column list (compiled once); none when a column has none. */
  private async binaryEncodersOf(cols: ColumnInfo[]): Promise<ReturnType<typeof binaryEncoders>> {
    let plan = this.binaryPlans.get(cols);
    if (plan === undefined) this.binaryPlans.set(cols, (plan = binaryEncoders(cols, await this.sessionIsUtc()) ?? null));
    return plan ?? undefined;
  }

  /** A zone-less timestamp means the session's zone: UTC unless the URL's options set another. */
  private sessionIsUtc(): Promise<boolean> {
    return (this.sessionUtc ??= this.db.query("SELECT current_setting('TimeZone')").then((r) => /^(Etc\/)?(UTC|UCT|Zulu|GMT)$/i.test(String(r.rows[0]?.[0])), () => false));
  }

  private copySql(cols: ColumnInfo[]): string {
    return `COPY ${this.db.dialect.table(this.o.table)} (${this.db.dialect.columnNames(cols)}) FROM STDIN`;
  }

  protected override async load(groups: Group[]): Promise<void> {
    // COPY costs extra round trips: small batches (a busy listener's) go faster as INSERTs.
    if (groups.reduce((n, g) => n + g.rows.length, 0) < COPY_FROM) return super.load(groups);
    await this.loadEncoded(groups);
  }

  /**
   * Groups through COPY (`text`: their COPY text, encoded ahead). A keyed group is one simple query
   * (upsertSql), joined by the batch's position and COMMIT when it is the only group: one round trip
   * a batch where there were six, each a chance for the event loop to start on other work first
   * (100,000 single-row transactions into a mirror: 4.00–4.27 s → 3.70–4.05 s, 4 of 5 runs).
   */
  private async loadEncoded(groups: Group[], text?: Buffer[][]): Promise<void> {
    if (groups.length === 0) return;
    // One group commits itself (with the batch's position: atomicLoad); several go in one transaction.
    const run = (fn: (c: PgConnection, wrap: (s: string) => string) => Promise<void>) => (groups.length === 1 ? this.db.atomicLoad((c, wrap) => fn(c as PgConnection, wrap)) : this.db.transaction((c) => fn(c as PgConnection, (s) => s)));
    await run(async (conn, wrap) => {
      for (const [i, g] of groups.entries()) {
        const chunks = text?.[i] ?? encode(g);
        if (this.key) await this.merge(conn, g.cols, chunks, wrap);
        else await copyChunks(conn, this.copySql(g.cols), chunks, wrap);
      }
    });
  }

  /**
   * A batch of changes with deletes or truncates: one COPY and one query when it can (flaggedRows),
   * else in order in one transaction, its segments' upserts merged through COPY when large enough
   * (with 1% deletes, multi-row INSERTs were 25 % slower); a temporary table is emptied after a
   * merge only if a later segment merges again (else COMMIT does).
   */
  protected override async applySteps(steps: ChangeStep[], segs: Segment[]): Promise<void> {
    const one = flaggedRows(steps, segs, this.key!);
    if (one) return this.db.atomicLoad((c, wrap) => this.merge(c as PgConnection, one.cols, chunked(one.rows, (r) => r.values, (r) => r.m), wrap, false, true));
    const bulk = (s: ChangeStep) => Array.isArray(s) && s.reduce((n, g) => n + g.rows.length, 0) >= COPY_FROM;
    const last = steps.findLastIndex(bulk);
    if (last < 0) return super.applySteps(steps, segs);
    await this.db.transaction(async (conn) => {
      for (const [i, s] of steps.entries())
        if (!Array.isArray(s)) await conn.query(s.sql, s.params);
        else if (bulk(s)) for (const g of s) await this.merge(conn as PgConnection, g.cols, encode(g), (x) => x, i < last);
        else for (const st of this.statementsOf(s)) await conn.query(st.sql, st.params);
    });
  }

  /** Keyed rows of `cols` merged (upsertSql); `again`: the same transaction may merge into the table again; `deletes`: flaggedRows. */
  private merge(conn: PgConnection, cols: ColumnInfo[], chunks: Buffer[], wrap: (s: string) => string, again = false, deletes = false): Promise<void> {
    const sql = upsertSql(this.db.dialect, this.o.table, cols, this.key!.map((k) => k.name), again || this.db.held !== undefined, deletes);
    return copyChunks(conn, sql, chunks, wrap, () => this.early.prepare());
  }

  override plan(): PlanItem[] {
    return [...super.plan(), { label: 'load', value: this.key ? 'COPY into a temporary table, then INSERT … ON CONFLICT DO UPDATE, one transaction per batch' : 'COPY FROM STDIN; rows of a table go through COPYs of up to 8 batches (32 MB), each committed whole' }];
  }
}
