import type { CheckpointStore } from '../../checkpoint/envelope.js';
import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, configError } from '../../core/errors.js';
import type { DescribedTable, PlanItem, PoolStats, Source, SourceBatch, SourceContext } from '../../core/route.js';
import { sleep } from '../../core/wakeup.js';
import { sourceCheckpointStore } from './position/checkpoint-store.js';
import type { Database } from './database.js';
import { openDatabase } from './open-database.js';
import { loadKind } from './kind.js';
import { CursorReader } from './read/read-cursor.js';
import { DeleteReader } from './read/read-delete.js';
import { LeaseReader } from './read/read-lease.js';
import { SelectReader } from './read/read-select.js';
import { SnapshotReader } from './read/read-snapshot.js';
import type { Reader } from './read/reader.js';
import { parseKeyRange, parsePartition, partitionedDb, partPredicate, rangePredicate } from './read/partition.js';
import { RowMessages } from './read/rows.js';
import { INTEGER_TYPES, isQueueShape, type TableInfo } from './types.js';
import { describedOf } from './typed-target.js';

/** The database consumer: picks a read strategy from the fields (decisions §3) and polls it. */
export class SqlSource implements Source {
  durablePosition = false;
  private db!: Database;
  private releaseDb: (() => Promise<void>) | undefined;
  private reader!: Reader;
  private store: CheckpointStore | undefined;
  private ctx!: SourceContext;
  private info!: TableInfo;
  /** The last poll found nothing: the source waits for new rows. */
  private waiting = false;
  /** partition=k/N, as the plan shows it. */
  private part: string | undefined;

  constructor(private readonly ep: Endpoint) {}

  private get table(): string {
    return this.ep.fields.table as string;
  }

  async open(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    const driver = await loadKind(this.ep.kind);
    driver.dialect.table(this.table); // a bad identifier is a config error before connecting
    const opened = await openDatabase(this.ep, driver, ctx.warn);
    this.db = opened.db;
    this.releaseDb = opened.release;
    this.info = await this.db.dialect.introspect(await this.conn(), this.table);
    if (!this.info.exists) throw configError(`table ${this.table} does not exist in the ${this.ep.kind} source`);
    this.reader = await this.chooseReader();
  }

  /** Introspection runs on a pooled connection; a small adapter keeps Dialect unaware of pools. */
  private async conn() {
    return { query: (sql: string, params?: readonly unknown[]) => this.db.query(sql, params) };
  }

  private column(name: string, field: string) {
    const c = this.info.columns.find((x) => x.name === name);
    if (!c) throw configError(`${field} "${name}" is not a column of ${this.table} (columns: ${this.info.columns.map((x) => x.name).join(', ')})`);
    return c;
  }

  private async chooseReader(): Promise<Reader> {
    const f = this.ep.fields;
    const cursorName = f.cursor_column as string | undefined;
    const rows = new RowMessages({
      driver: this.db.driver,
      table: this.table,
      info: this.info,
      timestamps: (f.timestamps as 'text' | 'rfc3339' | undefined) ?? 'text',
      metadataCursor: f.source_metadata === true ? cursorName : undefined,
    });
    const pk = this.info.primaryKey.map((k) => this.column(k, 'primary key'));
    const select = this.db.dialect.selectList(this.info);
    const part = f.partition === undefined ? undefined : parsePartition(f.partition as string);
    if (part && pk.length === 0) throw configError(`partition needs a primary key on ${this.table}: the rows are split by the hash of their key`);
    const range = f.key_range === undefined ? undefined : parseKeyRange(f.key_range as string);
    if (range && (pk.length !== 1 || !INTEGER_TYPES.has(pk[0]!.type))) throw configError(`key_range needs a primary key of one integer column; ${this.table}'s is ${pk.map((c) => `${c.name} ${c.dbType}`).join(', ') || 'missing'}`);
    const predicate = part ? partPredicate(this.db.dialect, pk, part) : range ? rangePredicate(this.db.dialect, pk[0]!, range) : undefined;
    // The readers of one part see the table as that part's rows (sql/read/partition.ts).
    const readDb = predicate ? partitionedDb(this.db, this.table, predicate) : this.db;
    this.part = predicate && `${part ? `part ${part.k} of ${part.n}` : `key range ${f.key_range as string}`}: rows where ${predicate}`;
    const deletes = f.delete_after_read === true;
    if (f.select_query !== undefined) {
      if (deletes && pk.length === 0) throw configError(`delete_after_read needs a primary key on ${this.table} to delete the rows select_query returned`);
      this.durablePosition = true;
      return new SelectReader({ db: this.db, table: this.table, query: f.select_query as string, rows, deleteKey: deletes ? pk : undefined, copy: this.ctx.mode === 'copy' });
    }
    if (cursorName !== undefined) {
      const column = this.column(cursorName, 'cursor_column');
      if (f.source_metadata === true && (!INTEGER_TYPES.has(column.type) || !this.info.uniqueColumns.has(column.name)))
        throw configError(`source_metadata needs cursor_column to be a unique integer column; ${column.name} is ${column.dbType}${this.info.uniqueColumns.has(column.name) ? '' : ' without a unique index'}`);
      if (f.cursor_id !== undefined) {
        this.store = await sourceCheckpointStore(f.checkpoint_store as string | undefined, this.db, this.table);
        try {
          if (!this.ctx.dryRun) await this.store.open();
        } catch (e) {
          if (e instanceof BridgeError && e.kind !== 'fatal' && e.kind !== 'rejected') throw e;
          throw configError(`cannot prepare the checkpoint store (${this.store.description}): ${(e as Error).message}; on a read-only source set checkpoint_store=file://<path>`);
        }
        this.durablePosition = true;
      }
      const reader = new CursorReader({
        db: readDb,
        select,
        table: this.table,
        column,
        primaryKey: pk,
        rows,
        store: this.store,
        cursorId: f.cursor_id === undefined ? undefined : part ? `${f.cursor_id as string}.part${part.k}of${part.n}` : (f.cursor_id as string),
        lagMs: f.cursor_lag_ms as number,
        settleMs: this.ctx.mode === 'copy' || this.ctx.exitWhenDrained ? 2000 : 0,
        warn: this.ctx.warn,
        sinkPositions: this.ctx.sinkPositions,
      });
      await reader.start(!this.ctx.dryRun, this.ctx.dryRun);
      return reader;
    }
    const queue = isQueueShape(this.info);
    if (deletes) {
      this.durablePosition = true;
      if (queue) return new LeaseReader(this.db, this.table, rows);
      if (pk.length === 0) throw configError(`delete_after_read needs a primary key on ${this.table} (or the queue shape id/payload/locked_until)`);
      return new DeleteReader({ db: this.db, select, table: this.table, key: pk, rows });
    }
    if (this.ctx.mode === 'tail')
      throw configError(
        `tail needs something to follow: ${this.table} would be read once. Give --cursor-column <column> (or ?cursor_column=), or delete_after_read=true to drain it as a queue`,
      );
    if (pk.length === 0 && !this.db.dialect.rowPosition && !this.db.driver.keylessReader)
      throw configError(`${this.table} has no primary key to page by: give --cursor-column <column> (any ascending column)`);
    if (queue) return new SnapshotReader({ db: readDb, table: this.table, key: [this.column('id', 'id')], rows, payloadColumn: 'payload' });
    const keyless = pk.length === 0 ? await this.db.driver.keylessReader?.(this.db, this.table, rows, select) : undefined;
    if (keyless) return keyless;
    return new SnapshotReader({ db: readDb, select, table: this.table, key: pk, rows });
  }

  async next(max: number, signal: AbortSignal): Promise<SourceBatch | null> {
    const f = this.ep.fields;
    const base = f.polling_interval_ms as number;
    const cap = (f.max_polling_interval_ms as number | undefined) ?? base;
    let wait = base;
    while (!signal.aborted) {
      const batch = await this.reader.poll(max);
      this.waiting = !batch;
      if (batch) return batch;
      if (this.reader.finite || this.ctx.mode === 'copy' || this.ctx.exitWhenDrained) return null;
      await sleep(wait, signal);
      wait = Math.min(wait * 2, cap);
    }
    return null;
  }

  /** A table read once by its key yields rows (SQL sinks write them without messages). */
  get rowBatches(): SnapshotReader['rowBatches'] | undefined {
    return this.reader.rowBatches;
  }

  useWireFormat(format: string): void {
    this.reader.useWireFormat?.(format);
  }

  caughtUp(): boolean {
    return this.waiting;
  }

  async estimateRows(): Promise<number | null> {
    return (await this.reader.estimate?.()) ?? null;
  }

  async plan(): Promise<PlanItem[]> {
    const cols = this.info.columns.map((c) => `${c.name} ${c.dbType}`).join(', ');
    return [{ label: 'source', value: `${this.ep.kind} table ${this.table} (${cols})` }, ...(this.part ? [{ label: 'partition', value: this.part }] : []), ...this.reader.plan()];
  }

  async describeTable(profile = false): Promise<DescribedTable | undefined> {
    if (!this.info || isQueueShape(this.info) || this.ep.fields.select_query !== undefined) return undefined;
    const profiles = profile ? await this.db.dialect.profileColumns({ query: (s, p) => this.db.query(s, p) }, this.table, this.info.columns) : undefined;
    return describedOf(this.info, this.ep.kind, this.db, profiles);
  }

  checkpoint(): string | undefined {
    return this.reader?.checkpoint?.();
  }

  resumedFrom(): string | undefined {
    return this.reader?.resumedFrom?.();
  }

  poolStats(): PoolStats | undefined {
    return this.db?.stats();
  }

  async close(): Promise<void> {
    await this.reader?.close?.();
    await this.store?.close();
    await this.releaseDb?.();
    this.releaseDb = undefined;
  }
}
