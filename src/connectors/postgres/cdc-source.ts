import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, configError, transientError } from '../../core/errors.js';
import { Message, type Metadata } from '../../core/message.js';
import type { PlanItem, PoolStats, Source, SourceBatch, SourceContext } from '../../core/route.js';
import { openDatabase, type Database } from '../sql/database.js';
import { rowRenderer, type RenderColumn, type RenderOptions } from '../sql/render.js';
import { RowFields, RowShape } from '../sql/row-fields.js';
import { parsePgArray } from './array.js';
import { classifyPg, pgConfig } from './driver.js';
import { postgresKind } from './index.js';
import { decodePgOutput, formatLsn, parseLsn, type Relation, type Tuple } from './pgoutput.js';
import { Wakeup } from '../../pipeline/sleep.js';
import { pgType } from './types.js';

type PgClient = import('pg').Client;
type Item = { m: Message } | { commit: bigint };

/** Microseconds between the Unix epoch and 2000-01-01, PostgreSQL's epoch. */
const PG_EPOCH_US = 946_684_800_000_000n;

/**
 * Change capture through a logical replication slot with pgoutput (decisions §3): one message per
 * inserted, updated or deleted row of the table, released when its transaction commits. The slot's
 * confirmed position moves only past transactions whose every message the sink confirmed; while
 * nothing is pending it follows the server's keepalives, so WAL does not pile up on quiet tables.
 */
export class CdcSource implements Source {
  readonly durablePosition = true;
  private db!: Database;
  private releaseDb: (() => Promise<void>) | undefined;
  private client: PgClient | undefined;
  private ctx!: SourceContext;
  private readonly relations = new Map<number, Relation>();
  private readonly shapes = new Map<string, RowShape>();
  private ready: Item[] = [];
  private readyMessages = 0;
  private openTx: Item[] | undefined;
  private inFlight = 0;
  private confirmed = 0n;
  private received = 0n;
  private drainTarget = 0n;
  private failure: BridgeError | undefined;
  private readonly wakeup = new Wakeup();
  private timer: NodeJS.Timeout | undefined;
  private lastStatus = 0;
  private paused = false;
  private lag: number | undefined;
  private lagTimer: NodeJS.Timeout | undefined;
  private changeIndex = 0;
  private readonly render: RenderOptions;

  constructor(private readonly ep: Endpoint) {
    this.render = { timestamps: (ep.fields.timestamps as 'text' | 'rfc3339') ?? 'text', parseArray: parsePgArray };
  }

  private get f() {
    return this.ep.fields as { table: string; publication: string; slot_name: string; create_publication: boolean; source_metadata: boolean };
  }

  async open(ctx: SourceContext): Promise<void> {
    this.ctx = ctx;
    const d = postgresKind.dialect;
    d.table(this.f.table);
    const opened = await openDatabase(this.ep, postgresKind, ctx.warn);
    this.db = opened.db;
    this.releaseDb = opened.release;
    const q = async (sql: string, params?: unknown[]) => (await this.db.query(sql, params)).rows;
    const level = String((await q('SHOW wal_level'))[0]![0]);
    if (level !== 'logical')
      throw configError(`change capture needs wal_level=logical (the server has ${level}): run ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL`);
    const info = await d.introspect({ query: (s, p) => this.db.query(s, p) }, this.f.table);
    if (!info.exists) throw configError(`table ${this.f.table} does not exist in the postgres source`);
    await this.ensurePublication(q);
    if (!ctx.dryRun) await this.ensureSlot(q);
    this.drainTarget = parseLsn(String((await q('SELECT pg_current_wal_lsn()::text'))[0]![0]));
    if (ctx.dryRun) return;
    await this.streamFromSlot();
    this.lagTimer = setInterval(() => void this.updateLag(), 2000);
    this.lagTimer.unref();
  }

  private async ensurePublication(q: (sql: string, p?: unknown[]) => Promise<unknown[][]>): Promise<void> {
    const pub = this.f.publication;
    if ((await q('SELECT 1 FROM pg_publication WHERE pubname = $1', [pub])).length > 0) return;
    if (!this.f.create_publication || this.ctx.dryRun)
      throw configError(`publication ${pub} does not exist: set create_publication=true, or run CREATE PUBLICATION ${pub} FOR TABLE ${this.f.table}`);
    try {
      await q(`CREATE PUBLICATION ${postgresKind.dialect.quote(pub)} FOR TABLE ${postgresKind.dialect.table(this.f.table)}`);
    } catch (e) {
      if ((e as BridgeError).cause && (e as { cause: { code?: string } }).cause.code === '42501')
        throw configError(`creating publication ${pub} needs ownership of ${this.f.table}: connect as its owner, or have the owner run CREATE PUBLICATION ${pub} FOR TABLE ${this.f.table}`);
      if (!/already exists/.test((e as Error).message)) throw e;
    }
  }

  private async ensureSlot(q: (sql: string, p?: unknown[]) => Promise<unknown[][]>): Promise<void> {
    const slot = this.f.slot_name;
    const rows = await q('SELECT plugin, active_pid, database FROM pg_replication_slots WHERE slot_name = $1', [slot]);
    if (rows.length === 0) {
      try {
        await q(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
      } catch (e) {
        const code = (e as { cause?: { code?: string } }).cause?.code;
        if (code === '42501') throw configError(`creating replication slot ${slot} needs the REPLICATION attribute: ALTER ROLE <user> WITH REPLICATION`);
        if (code !== '42710') throw e; // created by someone else meanwhile: fine
      }
      return;
    }
    const [plugin, pid] = rows[0]!;
    if (plugin !== 'pgoutput') throw configError(`replication slot ${slot} uses the ${String(plugin)} plugin, not pgoutput: choose another slot_name`);
    if (pid !== null && pid !== undefined)
      throw configError(`replication slot ${slot} is in use by server process ${String(pid)} (another bridge tail?): stop it, or give this one another slot_name`);
  }

  /** Opens the replication connection and starts streaming from the slot's confirmed position. */
  private async streamFromSlot(): Promise<void> {
    this.relations.clear();
    this.shapes.clear();
    this.ready = [];
    this.readyMessages = 0;
    this.openTx = undefined;
    this.failure = undefined;
    this.paused = false;
    const pg = (await import('pg')).default;
    const cfg = pgConfig(this.ep, this.ctx.warn);
    const client = new pg.Client({ ...cfg, replication: 'database' } as never);
    client.on('error', (e) => this.fail(e));
    try {
      await client.connect();
    } catch (e) {
      throw classifyPg(e, true);
    }
    this.client = client;
    const conn = (client as unknown as { connection: NodeJS.EventEmitter & { stream: NodeJS.ReadableStream; sendCopyFromChunk(b: Buffer): void } }).connection;
    conn.on('copyData', (msg: { chunk: Buffer }) => this.onCopyData(msg.chunk));
    const started = new Promise<void>((resolve, reject) => {
      conn.once('replicationStart', () => resolve());
      const pub = this.f.publication.replace(/'/g, "''");
      client
        .query(`START_REPLICATION SLOT ${postgresKind.dialect.quote(this.f.slot_name)} LOGICAL 0/0 (proto_version '1', publication_names '${pub}')`)
        .then(
          () => this.fail(new Error('the replication stream ended')),
          (e: unknown) => {
            const err = this.startError(e);
            reject(err);
            this.fail(err);
          },
        );
    });
    await started;
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  private startError(e: unknown): BridgeError {
    const code = (e as { code?: string }).code;
    const msg = (e as Error).message;
    if (code === '55006') return configError(`replication slot ${this.f.slot_name} is in use by another process (another bridge tail?): stop it, or give this one another slot_name`);
    if (code === '42704') return configError(`publication ${this.f.publication} does not exist: set create_publication=true, or run CREATE PUBLICATION ${this.f.publication} FOR TABLE ${this.f.table}`);
    if (code === '42501') return configError(`change capture needs the REPLICATION attribute: ALTER ROLE <user> WITH REPLICATION (${msg})`);
    return classifyPg(e);
  }

  private fail(e: unknown): void {
    if (!this.failure) this.failure = e instanceof BridgeError ? e : transientError(`replication connection lost: ${(e as Error).message}`, e);
    this.notify();
  }

  private notify(): void {
    this.wakeup.notify();
  }

  private onCopyData(chunk: Buffer): void {
    if (chunk[0] === 0x6b) {
      // Primary keepalive: the server's WAL end; it may ask for an answer.
      const walEnd = chunk.readBigUInt64BE(1);
      if (walEnd > this.received) this.received = walEnd;
      if (this.idle()) this.confirmed = this.received > this.confirmed ? this.received : this.confirmed;
      if (chunk[17] === 1) this.sendStatus(false);
      this.notify();
      return;
    }
    if (chunk[0] !== 0x77) return;
    const walStart = chunk.readBigUInt64BE(1);
    const walEnd = chunk.readBigUInt64BE(9);
    if (walEnd > this.received) this.received = walEnd;
    const msg = decodePgOutput(chunk.subarray(25));
    switch (msg.tag) {
      case 'begin':
        this.openTx = [];
        break;
      case 'relation':
        this.relations.set(msg.relation.id, msg.relation);
        for (const k of [...this.shapes.keys()]) if (k.startsWith(`${msg.relation.id}:`)) this.shapes.delete(k);
        break;
      case 'insert':
        this.change(msg.relationId, 'insert', msg.row, walStart, false);
        break;
      case 'update':
        this.change(msg.relationId, 'update', msg.row, walStart, false);
        break;
      case 'delete':
        this.change(msg.relationId, 'delete', msg.old, walStart, !msg.full);
        break;
      case 'truncate':
        for (const id of msg.relationIds) if (this.ours(id)) this.push(new Message('{}', this.meta('truncate', walStart), `pg:${this.f.slot_name}:${formatLsn(walStart)}:truncate`));
        break;
      case 'commit': {
        const tx = this.openTx ?? [];
        this.openTx = undefined;
        tx.push({ commit: msg.endLsn });
        for (const item of tx) this.ready.push(item);
        this.readyMessages += tx.length - 1;
        this.backpressure();
        this.notify();
        break;
      }
      default:
        break;
    }
  }

  private ours(relationId: number): boolean {
    const r = this.relations.get(relationId);
    if (!r) return false;
    const [schema, name] = this.f.table.includes('.') ? this.f.table.split('.') : [undefined, this.f.table];
    return r.name === name && (schema === undefined || r.schema === schema);
  }

  private meta(op: string, lsn: bigint): Metadata {
    const m: Metadata = { 'bridge.op': op, 'bridge.table': this.f.table };
    if (this.f.source_metadata) m['bridge.src.pg_lsn'] = formatLsn(lsn);
    return m;
  }

  private push(m: Message): void {
    (this.openTx ??= []).push({ m });
  }

  /** One row change: the new row, or for deletes the key columns (the whole row with REPLICA IDENTITY FULL). */
  private change(relationId: number, op: string, tuple: Tuple, lsn: bigint, keyOnly: boolean): void {
    if (!this.ours(relationId)) return;
    const rel = this.relations.get(relationId)!;
    const idx: number[] = [];
    rel.columns.forEach((c, i) => {
      // Unchanged TOAST values are not sent: leave those fields out rather than invent them.
      if (tuple[i] !== undefined && (!keyOnly || c.key)) idx.push(i);
    });
    const sig = `${relationId}:${idx.join(',')}`;
    let shape = this.shapes.get(sig);
    if (!shape) {
      const cols: RenderColumn[] = idx.map((i) => ({ name: rel.columns[i]!.name, ...pgType(rel.columns[i]!.typeOid) }));
      shape = new RowShape(cols, this.render, false, rowRenderer(cols, this.render, false));
      this.shapes.set(sig, shape);
    }
    const values = idx.map((i) => tuple[i]);
    const n = this.changeIndex++;
    this.push(Message.lazy(new RowFields(shape, values), this.meta(op, lsn), () => `pg:${this.f.slot_name}:${formatLsn(lsn)}:${n}`));
  }

  /** Pauses the socket while too many changes wait for the sink, so memory stays bounded. */
  private backpressure(): void {
    const stream = (this.client as unknown as { connection?: { stream?: { pause(): void; resume(): void } } })?.connection?.stream;
    const limit = Math.max(10_000, this.ctx.batchSize * 8);
    if (!this.paused && this.readyMessages > limit) {
      stream?.pause();
      this.paused = true;
    } else if (this.paused && this.readyMessages < limit / 2) {
      stream?.resume();
      this.paused = false;
    }
  }

  private idle(): boolean {
    return this.ready.length === 0 && this.inFlight === 0 && this.openTx === undefined;
  }

  /** Standby status update: everything up to `confirmed` is flushed (at-least-once: never beyond). */
  private sendStatus(reply: boolean): void {
    const conn = (this.client as unknown as { connection?: { sendCopyFromChunk(b: Buffer): void } })?.connection;
    if (!conn || this.failure) return;
    const b = Buffer.alloc(34);
    b[0] = 0x72;
    b.writeBigUInt64BE(this.confirmed, 1);
    b.writeBigUInt64BE(this.confirmed, 9);
    b.writeBigUInt64BE(this.confirmed, 17);
    b.writeBigUInt64BE(BigInt(Date.now()) * 1000n - PG_EPOCH_US, 25);
    b[33] = reply ? 1 : 0;
    conn.sendCopyFromChunk(b);
    this.lastStatus = Date.now();
  }

  private tick(): void {
    // Quiet: ask for a keepalive, whose WAL position can then be confirmed.
    if (this.idle()) this.sendStatus(true);
    else if (Date.now() - this.lastStatus > 10_000) this.sendStatus(false);
    this.notify();
  }

  private confirm(lsn: bigint): void {
    if (lsn > this.confirmed) this.confirmed = lsn;
    this.sendStatus(false);
  }

  private drained(): boolean {
    return this.idle() && this.received >= this.drainTarget;
  }

  async next(max: number, signal: AbortSignal): Promise<SourceBatch | null> {
    for (;;) {
      if (signal.aborted) return null;
      if (this.failure) {
        const e = this.failure;
        if (e.kind !== 'transient') throw e;
        await this.restart();
        throw e;
      }
      // Transactions without changes of this table: confirm at once when nothing is in flight.
      while (this.inFlight === 0 && this.ready.length && 'commit' in this.ready[0]!) this.confirm((this.ready.shift() as { commit: bigint }).commit);
      if (this.readyMessages > 0) return this.take(max);
      if ((this.ctx.mode === 'copy' || this.ctx.exitWhenDrained) && this.drained()) return null;
      await this.wakeup.wait(signal);
    }
  }

  private async restart(): Promise<void> {
    clearInterval(this.timer);
    await this.client?.end().catch(() => {});
    this.client = undefined;
    // Changes not yet confirmed come again from the slot.
    this.streamFromSlot().catch((e) => this.fail(e));
  }

  private take(max: number): SourceBatch {
    const messages: Message[] = [];
    let commit: bigint | undefined;
    let i = 0;
    for (; i < this.ready.length; i++) {
      const item = this.ready[i]!;
      if ('commit' in item) {
        commit = item.commit;
        continue;
      }
      if (messages.length >= max) break;
      messages.push(item.m);
    }
    this.ready.splice(0, i);
    this.readyMessages -= messages.length;
    this.inFlight++;
    this.backpressure();
    const position = commit === undefined ? undefined : formatLsn(commit);
    return {
      messages,
      ...(position ? { position: `lsn ${position}` } : {}),
      ack: async () => {
        this.inFlight--;
        if (commit !== undefined) this.confirm(commit);
      },
      release: async () => {
        this.inFlight--;
      },
    };
  }

  private async updateLag(): Promise<void> {
    try {
      const r = await this.db.query('SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint::text FROM pg_replication_slots WHERE slot_name = $1', [this.f.slot_name]);
      this.lag = r.rows.length ? Number(r.rows[0]![0]) : undefined;
    } catch {
      /* lag is informative only */
    }
  }

  slotLagBytes(): number | undefined {
    return this.lag;
  }

  checkpoint(): string | undefined {
    return `slot ${this.f.slot_name} confirmed at ${formatLsn(this.confirmed)}`;
  }

  async plan(): Promise<PlanItem[]> {
    return [
      { label: 'source', value: `postgres table ${this.f.table}` },
      { label: 'mode', value: `change capture: publication ${this.f.publication}, slot ${this.f.slot_name} (pgoutput), one message per row change, released at commit` },
    ];
  }

  poolStats(): PoolStats | undefined {
    return this.db?.stats();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.lagTimer);
    if (this.client) {
      this.sendStatus(false);
      await this.client.end().catch(() => {});
      this.client = undefined;
    }
    await this.releaseDb?.();
    this.releaseDb = undefined;
  }
}
