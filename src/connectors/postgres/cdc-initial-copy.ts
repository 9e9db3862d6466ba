import { Message } from '../../core/message.js';
import { RowFields } from '../sql/values/row-fields.js';
import type { SourceBatch } from '../../core/route.js';
import { Wakeup } from '../../core/wakeup.js';
import type { TableInfo } from '../sql/types.js';
import type { ChangeAssembler } from './cdc-changes.js';
import type { CopyProgress } from './cdc-start.js';
import { inlineParams, parseCopyText } from './copy-out.js';
import { CopyOutReader } from './copy-out-reader.js';
import { ChunkPool } from '../sql/write/chunk-buffer.js';
import { classifyPg, loadPg } from './driver.js';
import { postgresKind } from './index.js';

type PgClient = import('pg').Client;

/** A string's JSON text without its quotes; most keys (digits, uuids) need no escape. */
const jsonText = (s: string): string => (/^[\w.:+-]*$/.test(s) ? s : JSON.stringify(s).slice(1, -1));

/** 256 KB Buffers the copied rows' COPY text is read into, given back once parsed. */
const copiedPool = new ChunkPool(8);

/** Where a copy stands: the table being read and the last key the sink confirmed in it. */
export interface CopyAt {
  table: string;
  after: string[] | undefined;
}

/**
 * The initial copy of change capture (snapshot=initial): the rows that existed before the slot,
 * table after table (in the order listed), each read in key order in the snapshot the slot
 * exported — so that they and the slot's stream neither overlap nor leave a gap — as messages
 * shaped like the stream's inserts. Each table is one `COPY (SELECT … ORDER BY key) TO STDOUT`:
 * the server sends while bridge turns rows into messages, with no round trip per batch (a cursor's
 * FETCH had the server wait for each batch to be asked for: 0.81× the speed of `bridge copy`).
 * COPY's text form is each type's output function, as a text-mode query and pgoutput give it.
 * Resumed after a stop (`from`: the table and the last key the sink confirmed), it reads the rest
 * in a fresh snapshot: rows newer than the slot's start, whose changes the stream then applies
 * again (a keyed mirror ends equal to the source; an append-only sink may get a row twice).
 */
export class InitialCopy {
  private client: PgClient | undefined;
  private drained = false;
  private keys: { name: string; dbType: string }[] = [];
  private copied = 0;
  private at = 0;
  private reader: CopyOutReader | undefined;
  private fields: { name: string; typeOid: number }[] = [];

  constructor(
    private readonly cfg: Record<string, unknown>,
    private readonly tables: readonly string[],
    private readonly infos: ReadonlyMap<string, TableInfo>,
    private readonly changes: ChangeAssembler,
  ) {}

  get done(): boolean {
    return this.drained;
  }

  /** The table being read (the first, before open). */
  get table(): string {
    return this.tables[this.at] ?? this.tables[this.tables.length - 1]!;
  }

  /** Opens the read: in `snapshot` (exported by the slot's creation) or, resuming, in a fresh one from `from`. */
  async open(snapshot: string | undefined, from: CopyAt | undefined): Promise<void> {
    const pg = await loadPg();
    const client = new pg.Client(this.cfg as never);
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (e) {
      throw classifyPg(e, true);
    }
    this.client = client;
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    if (snapshot) await client.query(`SET TRANSACTION SNAPSHOT '${snapshot.replace(/'/g, "''")}'`);
    // A progress naming a table no longer listed starts the list again (the mirror's rows are upserted).
    this.at = Math.max(0, from ? this.tables.indexOf(from.table) : 0);
    await this.start(from && this.tables[this.at] === from.table ? from.after : undefined);
  }

  /** The COPY of the current table, after the key `after` when given. */
  private async start(after: string[] | undefined): Promise<void> {
    const d = postgresKind.dialect;
    const info = this.infos.get(this.table)!;
    this.keys = info.primaryKey.map((k) => ({ name: k, dbType: info.columns.find((x) => x.name === k)!.dbType }));
    // pgoutput does not send generated columns: the copied rows leave them out too.
    const cols = info.columns.filter((c) => !c.generated).map((c) => d.quote(c.name)).join(', ');
    const order = this.keys.map((k) => d.quote(k.name)).join(', ');
    const where = after && this.keys.length ? ` WHERE (${order}) > (${this.keys.map((k, i) => `$${i + 1}::${k.dbType}`).join(', ')})` : '';
    const select = `SELECT ${cols} FROM ${d.table(this.table)}${where}${order ? ` ORDER BY ${order}` : ''}`;
    // The columns' types as the server names them (COPY sends none), from the same select, reading no row.
    const probe = await this.client!.query({ text: `SELECT * FROM (${select}) AS copied LIMIT 0`, values: where ? after : [] });
    this.fields = probe.fields.map((f) => ({ name: f.name, typeOid: f.dataTypeID }));
    this.reader = new CopyOutReader(`COPY (${inlineParams(select, where ? after! : [])}) TO STDOUT`, 'text', copiedPool);
    void this.client!.query(this.reader as never);
  }

  /** Up to `max` rows of the current table as text values; none at its end. */
  private async read(max: number): Promise<{ rows: (string | null)[][]; ended: boolean }> {
    const got = await this.reader!.next(max);
    if (!got) {
      await this.reader!.finished;
      return { rows: [], ended: true };
    }
    const rows = parseCopyText(got.chunks);
    copiedPool.give(got.chunks);
    return { rows, ended: false };
  }

  /** The next rows (at most `max`) of one table, with where they end; none once every table is read. */
  async take(max: number): Promise<{ messages: Message[]; at: CopyAt | undefined }> {
    for (;;) {
      const table = this.table;
      const keys = this.keys;
      const fields = this.fields;
      const { rows, ended } = await this.read(max);
      if (ended) await this.nextTable();
      if (rows.length === 0 && !this.drained) continue;
      // Found once per read, not per row: the key columns and the rows' shape.
      const keyIdx = keys.length && rows.length ? keys.map((k) => fields.findIndex((f) => f.name === k.name)) : [];
      const shape = this.changes.copyShape(fields);
      // A row's key as text, `["42"]`: its message id, the same in every copy.
      const one = keyIdx.length === 1 ? keyIdx[0]! : -1;
      const keyOf = (values: (string | null)[]): string => (one >= 0 && values[one] !== null ? `["${jsonText(values[one]!)}"]` : JSON.stringify(keyIdx.length ? keyIdx.map((i) => values[i]) : values));
      const meta = this.changes.copyMeta(table);
      const messages = rows.map((values) => Message.lazy(new RowFields(shape, values), meta, () => `pg:${table}:copy:${keyOf(values)}`));
      this.copied += messages.length;
      const last = rows[rows.length - 1];
      return { messages, at: last ? { table, after: keyIdx.length ? keyIdx.map((i) => String(last[i])) : undefined } : undefined };
    }
  }

  /** The current table is read: the next one's COPY, or the end. */
  private async nextTable(): Promise<void> {
    this.reader = undefined;
    if (this.at + 1 >= this.tables.length) {
      this.drained = true;
      return;
    }
    this.at++;
    await this.start(undefined);
  }

  get rowsCopied(): number {
    return this.copied;
  }

  /** Ends the read (its snapshot with it); a COPY not read to its end drops the connection (it cannot be stopped part-way). */
  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    if (this.reader) {
      // The dropped connection fails the COPY, which nothing reads any more.
      this.reader = undefined;
      (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      await c.end().catch(() => {});
      return;
    }
    await c.query('COMMIT').catch(() => {});
    await c.end().catch(() => {});
  }
}

/**
 * The copy as batches: each one's key is saved as the copy's progress once the sink confirmed it
 * (in order), and the copy is over once its last batch was confirmed.
 */
export class CopyPhase {
  private inFlight = 0;
  private readonly settledOne = new Wakeup();

  constructor(
    private readonly copy: InitialCopy,
    private readonly progress: CopyProgress | undefined,
  ) {}

  /** Opens the copy: in the slot's exported snapshot, or resumed after the last confirmed key (said in a warning). */
  static async open(copy: InitialCopy, from: { snapshot?: string; at?: CopyAt }, progress: CopyProgress | undefined, warn: (text: string) => void): Promise<CopyPhase> {
    await copy.open(from.snapshot, from.at);
    if (from.at)
      warn(
        `resuming the initial copy of ${from.at.table}${from.at.after ? ` after key ${from.at.after.join(', ')}` : ''} (a stop interrupted it): the rest is read as it is now, and the changes since the slot was made are applied after it (a keyed mirror ends equal to the source; an append-only sink may get some rows twice)`,
      );
    return new CopyPhase(copy, progress);
  }

  /** A batch; 'wait' while the last ones are confirmed (call again); 'over' once all were. */
  async next(max: number, signal: AbortSignal): Promise<SourceBatch | 'wait' | 'over'> {
    const { messages, at } = this.copy.done ? { messages: [], at: undefined } : await this.copy.take(max);
    if (messages.length) {
      this.inFlight++;
      const settled = (): void => {
        this.inFlight--;
        this.settledOne.notify();
      };
      const ack = async (): Promise<void> => {
        try {
          await this.progress?.save(at ?? null);
        } finally {
          settled();
        }
      };
      const position = `initial copy, ${this.copy.rowsCopied} rows${at ? ` (${at.table}${at.after ? ` key ${at.after.join(', ')}` : ''})` : ''}`;
      return { messages, position, ack, release: async () => settled() };
    }
    if (this.inFlight === 0) return 'over';
    await this.settledOne.wait(signal);
    return 'wait';
  }

  /** Ends the read; `over`: the copy is complete, its progress is dropped (the slot alone is the position from now on); else says where it stopped, and `again` when nothing resumes it. */
  async close(over: boolean, info?: (text: string) => void, again?: string): Promise<void> {
    if (!over) info?.(`the initial copy of ${this.copy.table} stopped after ${this.copy.rowsCopied} rows: ${again ?? 'the next run resumes it'}`);
    await this.copy.close();
    if (over) await this.progress?.finish();
    else await this.progress?.close();
  }
}
