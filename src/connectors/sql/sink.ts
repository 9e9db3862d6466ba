import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, configError, rejectedError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { CommitPosition, DescribedTable, HeldPart, PlanItem, PoolStats, Reply, Sink, SinkContext, SinkPositions } from '../../core/route.js';
import type { RowSet } from '../../core/row-set.js';
import type { Database } from './database.js';
import { openDatabase } from './open-database.js';
import { loadKind } from './kind.js';
import { parseTemplate, parseTokenQuery } from './write/tokens.js';
import { sinkTable } from './write/sink-table.js';
import { ColumnsWriter, type ColumnsOptions } from './write/write-columns.js';
import { defaultWriter } from './write/write-default.js';
import { LookupWriter } from './write/write-lookup.js';
import { TokenWriter } from './write/write-tokens.js';
import type { Writer } from './write/writer.js';
import { followSchema, schemaChanged, writeAcrossSchema } from './write/schema-follow.js';
import type { TableInfo } from './types.js';
import { openPositions, type PositionKeeper } from './position/sink-position.js';
import { HeldWrites } from './write/held-writes.js';

/**
 * The database publisher: picks the writer from the fields (default insert, insert_query tokens,
 * columns=auto with key/extra_column, bulk_copy, lookup_query) after creating the table if asked.
 */
export class SqlSink implements Sink {
  private db!: Database;
  private releaseDb: (() => Promise<void>) | undefined;
  private connecting: Promise<{ db: Database; release(): Promise<void> }> | undefined;
  /** The table as it was described while the source opened (prepare), so open() need not wait for it. */
  private described: Promise<TableInfo> | undefined;
  private writer!: Writer;
  private created = '';
  /** What typed creation says of the table it creates (or would). */
  private createdPlan: PlanItem[] = [];
  private changesNoted = false;
  private columnsCtx: SinkContext | undefined;
  private warn: (s: string) => void = () => {};
  /** Present when the writer takes rows from a SQL table without messages (columns=auto). */
  writeRows: ((rows: RowSet, commit?: CommitPosition) => Promise<boolean>) | undefined;
  largeRowBatches = false;
  wireFormat: string | undefined;
  rowConcurrency: number | undefined;
  /** Exactly once: the position table this sink commits routes' positions into (positions()). */
  private keeper: PositionKeeper | undefined;
  private view: Database | undefined;
  private held: HeldWrites | undefined;

  constructor(private readonly ep: Endpoint) {}

  private get table(): string {
    return this.ep.fields.table as string;
  }

  /**
   * Starts connecting while the source opens (open() takes the connection and reports its failure;
   * a source that fails first is the run's answer, as before).
   */
  prepare(warn: (s: string) => void): void {
    if (this.connecting) return;
    this.connecting = loadKind(this.ep.kind).then((driver) => openDatabase(this.ep, driver, warn));
    this.connecting.catch(() => {});
    // Described now, beside the source's own opening: a catalog query or four on a new session
    // (~20 ms on PostgreSQL) that each route otherwise waits for before its first row.
    if (typeof this.ep.fields.table === 'string' && !this.ep.fields.table.includes('*'))
      (this.described = this.connecting.then(({ db }) => db.dialect.introspect({ query: (s, p) => db.query(s, p) }, this.table))).catch(() => {});
  }

  /**
   * The position table (position_table, created on first use unless a dry run): the source resumes
   * from it, and each batch's position commits with its rows. None for lookup_query (it writes nothing).
   */
  async positions(dryRun: boolean, warn: (text: string) => void): Promise<SinkPositions | undefined> {
    if (this.ep.fields.lookup_query !== undefined) return undefined;
    const driver = await loadKind(this.ep.kind);
    this.connecting ??= openDatabase(this.ep, driver, warn);
    const opened = await openPositions(this.ep, this.table, this.own((await this.connecting).db), dryRun, warn);
    this.keeper = opened?.keeper;
    return opened?.book;
  }

  /** This sink's view of the (possibly shared) database: batches' positions pend on it alone (Database.forSink). */
  private own(db: Database): Database {
    return (this.view ??= db.forSink());
  }

  /** Commits a position alone (a batch without rows, or one whose rows went in parts). */
  savePosition = async (commit: CommitPosition): Promise<void> => {
    await this.keeper?.save(commit);
  };

  async open(ctx: SinkContext): Promise<void> {
    const f = this.ep.fields;
    this.warn = ctx.warn;
    const driver = await loadKind(this.ep.kind);
    driver.dialect.table(this.table);
    // Token queries are parsed before connecting: a malformed token is a config error (exit 2).
    const insert = f.insert_query === undefined ? undefined : parseTokenQuery(f.insert_query as string, 'insert_query');
    const lookup = f.lookup_query === undefined ? undefined : parseTemplate(f.lookup_query as string, 'lookup_query');
    if (insert && f.auto_create_table === true && insert.hasTokens) throw configError('auto_create_table cannot be combined with a token insert_query: create the table yourself');
    let bulkCopy: ((db: Database) => Writer) | undefined;
    if (f.bulk_copy === true) {
      if (!insert) throw configError('bulk_copy needs an insert_query with ${payload:…} tokens naming the columns to COPY');
      if (!driver.bulkCopy) throw configError(`bulk_copy is not supported on ${this.ep.kind}`);
      bulkCopy = await driver.bulkCopy(insert);
    }

    const opened = await (this.connecting ?? openDatabase(this.ep, driver, ctx.warn));
    this.db = this.own(opened.db);
    this.releaseDb = opened.release;
    const { info, created, createdPlan, dryCreate } = await sinkTable(this.db, this.ep, ctx, this.described);
    await this.keeper?.table.identify(); // the positions stand for this table as it is now (created just now, perhaps)
    this.created = created;
    this.createdPlan = createdPlan;

    if (lookup) this.writer = new LookupWriter(this.db, lookup, f.lookup_query as string);
    else if (bulkCopy) {
      this.writer = bulkCopy(this.db);
      this.takeRows();
    }
    else if (insert?.hasTokens) this.writer = new TokenWriter(this.db, insert);
    else if (f.columns === 'auto') {
      this.columnsCtx = ctx;
      await this.makeColumnsWriter(info);
      this.largeRowBatches = this.writer instanceof ColumnsWriter && this.writer.appendsUnchanged(ctx.sourceTable);
    } else {
      // Without tokens, insert_query (with its `?`) binds the whole payload once, as the default does.
      if (insert) this.writer = new TokenWriter(this.db, insert);
      else this.writer = await defaultWriter(this.db, driver, this.table, dryCreate ? undefined : info, ctx.warn);
    }
    if (!ctx.dryRun || info.exists) await this.takeRowsOf(ctx.sourceTable);
    if (!ctx.dryRun) this.db.pool.prewarm(this.writer.concurrency ?? 1);
  }

  /** columns=auto: the writer for the table's columns as `info` has them (made again when a mirror follows its source's columns). */
  private async makeColumnsWriter(info: TableInfo): Promise<void> {
    const f = this.ep.fields;
    const ctx = this.columnsCtx!;
    const driver = await loadKind(this.ep.kind);
    const key = f.key === undefined ? undefined : (f.key as string).split(',').map((k) => k.trim()).filter(Boolean);
    const options: ColumnsOptions = {
      table: this.table,
      info,
      extraColumn: f.extra_column as string | undefined,
      key,
      onDropped: (names, count) => {
        if (ctx.changes && names.length) throw schemaChanged(names, this.table);
        if (names.length) ctx.warn(`payload field${names.length > 1 ? 's' : ''} ${names.join(', ')} ha${names.length > 1 ? 've' : 's'} no column in ${this.table} and no extra_column: dropped (counted in the summary)`);
        ctx.countDropped(count);
      },
      onLossy: (n) => ctx.countLossy?.(n),
      warn: ctx.warn,
    };
    this.writer = (await driver.columnsWriter?.(this.db, options)) ?? new ColumnsWriter(this.db, options);
    this.takeRows();
  }

  /** A batch of change capture with schema messages: see writeAcrossSchema. */
  private async writeWithSchema(messages: Message[]): Promise<void> {
    const manage = this.ep.fields.auto_create_table === true;
    await writeAcrossSchema(this.db, messages, {
      write: (part) => this.writeNow(part),
      follow: async (shape) => {
        // Only a mirror (columns=auto) has columns to keep in step; other writers skip these messages.
        if (!(this.writer instanceof ColumnsWriter)) return;
        if (await followSchema(this.db, this.table, shape, manage, this.warn)) await this.makeColumnsWriter(await this.db.dialect.introspect({ query: (s, p) => this.db.query(s, p) }, this.table));
      },
    });
  }

  private async takeRowsOf(source: DescribedTable | undefined): Promise<void> {
    const intake = await this.writer.rowsFrom?.(source);
    if (!intake) return;
    if (intake.unchanged !== undefined) this.largeRowBatches = intake.unchanged;
    this.wireFormat = intake.wireFormat;
    this.rowConcurrency = intake.concurrency;
  }

  private takeRows(): void {
    const w = this.writer;
    if (!w.writeRows) return;
    this.writeRows = (rows, commit) => (commit && this.keeper ? this.keeper.write(commit, () => w.writeRows!(rows), (took) => took) : w.writeRows!(rows));
  }

  async write(messages: Message[], commit?: CommitPosition): Promise<Reply[] | void> {
    if (commit && this.keeper) return this.keeper.write(commit, () => this.writeNow(messages));
    return this.writeNow(messages);
  }

  /** A part of a source transaction in progress, into the transaction held for it (HeldWrites); its end commits the position with it. */
  async writeHeld(messages: Message[], part: HeldPart, commit?: CommitPosition): Promise<void> {
    const apply = () => (this.held ??= new HeldWrites(this.db, this.table)).apply(part, messages.length === 0, () => this.writeNow(messages));
    await (commit && this.keeper ? this.keeper.write(commit, apply) : apply());
  }

  ahead = (messages: Message[]): void => void (this.writer instanceof ColumnsWriter && this.writer.ahead(messages));

  private async writeNow(messages: Message[]): Promise<Reply[] | void> {
    if (messages.length === 0) return;
    if (messages.some((m) => m.metadata?.['bridge.op'] === 'schema')) return this.writeWithSchema(messages);
    if (!this.changesNoted && !(this.writer instanceof ColumnsWriter) && messages[0]!.metadata?.['bridge.op']) {
      this.changesNoted = true;
      this.warn(`change capture into ${this.table}: the operation (insert/update/delete) is only in message metadata, which this insert does not keep; use columns=auto&key=<primary key> to mirror the table`);
    }
    try {
      return await this.writer.write(messages);
    } catch (e) {
      if (e instanceof BridgeError && e.kind === 'rejected' && e.messageId === undefined)
        throw messages.length === 1
          ? rejectedError(`${this.ep.kind} rejected message ${messages[0]!.idHex}: ${e.message}`, e, messages[0]!.idHex)
          : rejectedError(`${this.ep.kind} rejected a batch of ${messages.length} messages: ${e.message}`, e);
      throw e;
    }
  }

  get answers(): boolean {
    return this.writer instanceof LookupWriter;
  }

  get concurrency(): number {
    return this.writer?.concurrency ?? 1;
  }

  flush = (waiting?: boolean): void => this.writer?.flush?.(waiting);

  locate(messages: Message[]) {
    return this.writer.locate(messages);
  }

  planMapping(columns: Parameters<NonNullable<Sink['planMapping']>>[0]): PlanItem[] {
    if (!(this.writer instanceof ColumnsWriter)) return [];
    return [{ label: 'column mapping', value: `${columns.length} source columns` }, ...this.writer.mapping(columns)];
  }

  async plan(): Promise<PlanItem[]> {
    return [{ label: 'sink', value: `${this.ep.kind} table ${this.table}${this.created}` }, ...this.createdPlan, ...this.writer.plan()];
  }

  poolStats(): PoolStats | undefined {
    return this.db?.stats();
  }

  async close(): Promise<void> {
    await this.held?.rollback();
    if (!this.releaseDb && this.connecting) this.releaseDb = (await this.connecting.catch(() => undefined))?.release;
    this.connecting = undefined;
    await this.releaseDb?.();
    this.releaseDb = undefined;
  }
}
