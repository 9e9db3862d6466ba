import type { Endpoint } from '../../config/endpoint.js';
import { BridgeError, configError, rejectedError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { PlanItem, PoolStats, Sink, SinkContext } from '../../core/route.js';
import { openDatabase, type Database } from './database.js';
import { loadKind } from './kind.js';
import type { ColumnInfo, TableInfo } from './types.js';

/** The database publisher: the default insert (whole payload into `payload`) and auto_create_table. */
export class SqlSink implements Sink {
  private db!: Database;
  private releaseDb: (() => Promise<void>) | undefined;
  private info!: TableInfo;
  private payload!: ColumnInfo;

  constructor(private readonly ep: Endpoint) {}

  private get table(): string {
    return this.ep.fields.table as string;
  }

  async open(ctx: SinkContext): Promise<void> {
    const driver = await loadKind(this.ep.kind);
    driver.dialect.table(this.table);
    const opened = await openDatabase(this.ep, driver, ctx.warn);
    this.db = opened.db;
    this.releaseDb = opened.release;
    const d = this.db.dialect;
    const create = this.ep.fields.auto_create_table === true;
    if (create && !ctx.dryRun) {
      const lock = d.ddlLock(this.table);
      await this.db.transaction(async (c) => {
        if (lock) await c.query(lock);
        for (const sql of d.createQueueTable(this.table)) await c.query(sql);
      });
    }
    this.info = await d.introspect({ query: (s, p) => this.db.query(s, p) }, this.table);
    if (!this.info.exists && create && ctx.dryRun) {
      this.payload = { name: 'payload', type: 'bytes', dbType: 'bytes', nullable: false };
      return;
    }
    if (!this.info.exists) throw configError(`table ${this.table} does not exist in the ${this.ep.kind} sink: create it, or set auto_create_table=true`);
    const payload = this.info.columns.find((c) => c.name === 'payload');
    if (!payload)
      throw configError(`${this.table} has no payload column: the default insert writes each message into payload (columns=auto and insert_query come in a later version)`);
    if (!['bytes', 'json', 'text'].includes(payload.type)) throw configError(`column ${this.table}.payload is ${payload.dbType}; the default insert needs bytes, JSON or text`);
    this.payload = payload;
  }

  async write(messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    const values = this.values(messages);
    const d = this.db.dialect;
    const t = d.table(this.table);
    const col = d.quote('payload');
    const chunk = Math.min(d.maxParams, 1000);
    const statements: { sql: string; params: unknown[] }[] = [];
    for (let i = 0; i < values.length; i += chunk) {
      const part = values.slice(i, i + chunk);
      let tuples = '';
      for (let j = 0; j < part.length; j++) tuples += (j ? ',' : '') + '(' + d.param(j + 1) + ')';
      statements.push({ sql: `INSERT INTO ${t} (${col}) VALUES ${tuples}`, params: part });
    }
    try {
      if (statements.length === 1) await this.db.query(statements[0]!.sql, statements[0]!.params);
      else
        await this.db.transaction(async (c) => {
          for (const s of statements) await c.query(s.sql, s.params);
        });
    } catch (e) {
      if (e instanceof BridgeError && e.kind === 'rejected')
        throw rejectedError(`${this.ep.kind} rejected a batch of ${messages.length} messages (first ${messages[0]!.idHex}): ${e.message}`, e, messages[0]!.idHex);
      throw e;
    }
  }

  /** Payload values typed for the column: bytes as Buffers, JSON/text as strings (JSON checked first). */
  private values(messages: Message[]): unknown[] {
    if (this.payload.type === 'bytes') return messages.map((m) => m.bytes());
    const out = messages.map((m) => m.text());
    if (this.payload.type === 'json')
      for (let i = 0; i < out.length; i++) {
        if (messages[i]!.isJson) continue;
        try {
          JSON.parse(out[i]!);
        } catch {
          throw rejectedError(`message ${messages[i]!.idHex} is not JSON, but ${this.table}.payload is ${this.payload.dbType}`, undefined, messages[i]!.idHex);
        }
      }
    return out;
  }

  async plan(): Promise<PlanItem[]> {
    return [
      { label: 'sink', value: `${this.ep.kind} table ${this.table}${this.ep.fields.auto_create_table ? ' (created if missing, queue shape)' : ''}` },
      { label: 'insert', value: `INSERT INTO ${this.table} (payload) VALUES (?) — whole message as ${this.payload.dbType}, multi-row, one transaction per batch` },
    ];
  }

  poolStats(): PoolStats | undefined {
    return this.db?.stats();
  }

  async close(): Promise<void> {
    await this.releaseDb?.();
    this.releaseDb = undefined;
  }
}
