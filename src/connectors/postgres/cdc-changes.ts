import { Message, type Metadata } from '../../core/message.js';
import type { SchemaShape } from '../../core/schema-change.js';
import { columnsKey, ShapeWatch } from './cdc-shapes.js';
import { rowRenderer, type RenderColumn, type RenderOptions } from '../sql/values/render.js';
import { RowFields, RowShape } from '../sql/values/row-fields.js';
import { postgresKind } from './index.js';
import { formatLsn, type PgOutputMessage, type Relation, type Tuple } from './pgoutput.js';
import { pgType } from './types.js';

/** A transaction as the source releases it: its messages, then its commit's end LSN. */
export type { Item } from '../sql/capture/change-batches.js';
import type { Item } from '../sql/capture/change-batches.js';

/**
 * Turns the pgoutput stream into messages of the captured tables: one per inserted, updated or deleted row
 * (or truncate), kept until the transaction's commit. A message's id comes from the transaction's
 * commit LSN and its place in it, so the same change has the same id when a restart streams it again.
 */
export class ChangeAssembler {
  private readonly relations = new Map<number, Relation>();
  private readonly shapes = new Map<string, RowShape>();
  private readonly metas = new Map<string, Metadata>();
  private lastMeta: { op: string; table: string; meta: Metadata } | undefined;
  /** Per relation, found once (not per change): the captured table it is, and the shape of a row with every column. */
  private readonly known = new Map<number, { table: string | undefined; full?: RowShape }>();
  private openTx: Item[] | undefined;
  private txLsn = 0n;
  private txIndex = 0;
  private txLsnText = '';

  /** Given when the sink keeps a mirror's columns in step (a database): relation changes become schema messages. */
  readonly shapesSeen: ShapeWatch | undefined;
  /** `schema.name` and bare `name` → the table's name as listed (bridge.table). */
  private readonly listed = new Map<string, string>();

  constructor(
    tables: readonly string[],
    private readonly sourceMetadata: boolean,
    private readonly render: RenderOptions,
    /** The operations that become messages (the field `operations`); the others are skipped. */
    private readonly operations: ReadonlySet<string> = new Set(['insert', 'update', 'delete', 'truncate']),
    /** Given when the sink keeps a mirror's columns in step (a database): relation changes become schema messages. */
    describeRelation?: (relation: Relation) => Promise<{ table: SchemaShape['table']; attnums: number[] }>,
  ) {
    for (const t of tables) this.listed.set(t, t);
    this.shapesSeen = describeRelation && new ShapeWatch(describeRelation);
  }

  private resume: { end: bigint; partialTx: string; partialCount: number } | undefined;

  /** Whether a transaction is being received (its changes are not released yet). */
  get inTransaction(): boolean {
    return this.openTx !== undefined;
  }

  /** Changes of the transaction being received, held until its commit (or taken by takeOpen). */
  get openLength(): number {
    return this.openTx?.length ?? 0;
  }

  /**
   * The changes of the transaction being received, so far, taken out: a transaction too long to
   * hold whole is released in parts (its commit comes with the last). pgoutput (protocol 1) sends a
   * transaction only once it has committed, so no part of it can be rolled back.
   */
  takeOpen(): Item[] {
    const part = this.openTx ?? [];
    if (this.openTx) this.openTx = [];
    return part;
  }

  /** A stream block of transaction `xid` in progress: its changes are named by the xid (no commit yet) from place `index` on, not skipped by a resume (see push). */
  enterBlock(xid: number, index: number): void {
    this.startTx(0xffffffffffffffffn, `xid${xid}`, index);
  }

  private startTx(lsn: bigint, text: string, index: number): void {
    this.openTx = [];
    this.txLsn = lsn;
    this.txLsnText = text;
    this.txIndex = index;
  }

  /** The block's changes not yet taken; the place of its next change. */
  leaveBlock(): { items: Item[]; index: number } {
    const items = this.takeOpen();
    this.openTx = undefined;
    return { items, index: this.txIndex };
  }

  /** A relation message inside a stream block that changes what is known of a table: its columns changed within the transaction in progress. */
  relationChanged(rel: Relation): boolean {
    const before = this.relations.get(rel.id);
    const table = this.listed.get(`${rel.schema}.${rel.name}`) ?? this.listed.get(rel.name);
    return (before !== undefined && columnsKey(before) !== columnsKey(rel)) || (table !== undefined && this.shapesSeen?.changed(table, rel) === true);
  }

  reset(): void {
    this.relations.clear();
    this.known.clear();
    this.shapes.clear();
    this.openTx = undefined;
  }

  /** Feeds one decoded message; returns the transaction's items when it commits. */
  onMessage(msg: PgOutputMessage, walStart: bigint): Item[] | undefined {
    switch (msg.tag) {
      case 'begin':
        return void this.startTx(msg.finalLsn, formatLsn(msg.finalLsn), 0);
      case 'relation':
        this.relations.set(msg.relation.id, msg.relation);
        this.known.delete(msg.relation.id);
        for (const k of [...this.shapes.keys()]) if (k.startsWith(`${msg.relation.id}:`)) this.shapes.delete(k);
        this.noteShape(msg.relation);
        return undefined;
      case 'insert':
        return this.change(msg.relationId, 'insert', msg.row, walStart, false);
      case 'update':
        return this.change(msg.relationId, 'update', msg.row, walStart, false);
      case 'delete':
        return this.change(msg.relationId, 'delete', msg.old, walStart, !msg.full);
      case 'truncate':
        if (!this.operations.has('truncate')) return undefined;
        for (const id of msg.relationIds) {
          const table = this.ours(id);
          if (table !== undefined) this.push(new Message('{}', this.meta(table, 'truncate', walStart), this.seed(table)));
        }
        return undefined;
      case 'commit': {
        const tx = this.openTx ?? [];
        this.openTx = undefined;
        tx.push({ commit: msg.endLsn });
        return tx;
      }
      default:
        return undefined;
    }
  }

  /** A captured table's columns as this relation message shows them (ShapeWatch). Its id does not take a place among the transaction's changes. */
  private noteShape(rel: Relation): void {
    const table = this.ours(rel.id);
    if (table === undefined || !this.shapesSeen || !this.openTx) return;
    const m = this.shapesSeen.note(table, rel, `pg:${table}:${this.txLsnText}:schema:${this.txIndex}`);
    if (m) this.push(m);
  }

  /** `pg:<table>:<commit LSN>:<n>` (decisions §6). */
  private seed(table: string): string {
    return `pg:${table}:${this.txLsnText}:${this.txIndex++}`;
  }

  /** The captured table a relation is, as listed (a bare name stands for any schema's table of that name), or undefined. */
  private ours(relationId: number): string | undefined {
    let k = this.known.get(relationId);
    if (!k) this.known.set(relationId, (k = { table: this.find(relationId) }));
    return k.table;
  }

  private find(relationId: number): string | undefined {
    const r = this.relations.get(relationId);
    if (!r) return undefined;
    return this.listed.get(`${r.schema}.${r.name}`) ?? this.listed.get(r.name) ?? this.adopt?.(r.schema, r.name, r.columns.some((c) => c.key));
  }

  /** A pattern's capture: a relation not listed may be a table created since (cdc-new-tables.ts). */
  adopt: ((schema: string, name: string, keyed: boolean) => string | undefined) | undefined;

  private meta(table: string, op: string, lsn: bigint): Metadata {
    // Without a per-change position, the changes of one table and operation share one (frozen) metadata object.
    if (!this.sourceMetadata) {
      // The last one asked for comes again for most changes (a run of one table's updates).
      if (this.lastMeta?.op === op && this.lastMeta.table === table) return this.lastMeta.meta;
      const key = `${op} ${table}`;
      let shared = this.metas.get(key);
      if (!shared) this.metas.set(key, (shared = Object.freeze({ 'bridge.op': op, 'bridge.table': table })));
      this.lastMeta = { op, table, meta: shared };
      return shared;
    }
    const m: Metadata = { 'bridge.op': op, 'bridge.table': table };
    if (this.sourceMetadata) m['bridge.src.pg_lsn'] = formatLsn(lsn);
    return m;
  }

  private push(m: Message): void {
    // Resuming from a sink's position: changes it already holds are not sent again (the index is the seed's n).
    const r = this.resume;
    if (r && (this.handedBefore(this.txLsn) || (this.txLsnText === r.partialTx && this.txIndex - 1 < r.partialCount))) return;
    (this.openTx ??= []).push({ m });
  }

  /** A transaction committed at `commitLsn` was handed out whole before the stream restarted (or a sink holds it): it is not applied again. */
  handedBefore(commitLsn: bigint): boolean {
    return this.resume !== undefined && commitLsn < this.resume.end;
  }

  /**
   * Resumes after what a sink holds (exactly once), or what this run handed out before its stream
   * restarted: transactions that committed at or before `end`, and the first `partialCount` changes
   * of the transaction whose commit LSN is `partialTx`.
   */
  resumeAfter(end: bigint, partialTx = '', partialCount = 0): void {
    this.resume = { end, partialTx, partialCount };
  }

  /** One row change: the new row, or for deletes the key columns (the whole row with REPLICA IDENTITY FULL). */
  private change(relationId: number, op: string, tuple: Tuple, lsn: bigint, keyOnly: boolean): undefined {
    const table = this.ours(relationId);
    if (table === undefined || !this.operations.has(op)) return undefined;
    const rel = this.relations.get(relationId)!;
    // Every column sent (the usual case): the relation's whole shape, the tuple as the values.
    if (!keyOnly && !tuple.includes(undefined)) {
      const k = this.known.get(relationId)!;
      const shape = (k.full ??= this.shapeOf(`${relationId}:*`, rel.columns));
      this.push(Message.lazy(new RowFields(shape, tuple as (string | null)[]), this.meta(table, op, lsn), this.seed(table)));
      return undefined;
    }
    const idx: number[] = [];
    rel.columns.forEach((c, i) => {
      // Unchanged TOAST values are not sent: leave those fields out rather than invent them.
      if (tuple[i] !== undefined && (!keyOnly || c.key)) idx.push(i);
    });
    const shape = this.shapeOf(`${relationId}:${idx.join(',')}`, idx.map((i) => rel.columns[i]!));
    this.push(Message.lazy(new RowFields(shape, idx.map((i) => tuple[i])), this.meta(table, op, lsn), this.seed(table)));
    return undefined;
  }

  /** The initial copy's metadata of a table: one frozen object, asked for once per read (not per row), as the stream's changes share theirs. */
  copyMeta(table: string): Metadata {
    let meta = this.metas.get(`copy ${table}`);
    if (!meta) this.metas.set(`copy ${table}`, (meta = Object.freeze({ 'bridge.op': 'insert', 'bridge.table': table, 'bridge.snapshot': 'true' })));
    return meta;
  }

  /** The shape of the initial copy's rows, once per read (not per row). */
  copyShape = (fields: { name: string; typeOid: number }[]): RowShape => this.shapeOf(`copy:${fields.map((f) => `${f.name}:${f.typeOid}`).join(',')}`, fields);

  private shapeOf(sig: string, columns: { name: string; typeOid: number }[]): RowShape {
    let shape = this.shapes.get(sig);
    if (!shape) {
      const cols: RenderColumn[] = columns.map((c) => ({ name: c.name, ...pgType(c.typeOid) }));
      const binder = postgresKind.dialect.binder;
      const sources = cols.map((c) => ({ col: { name: c.name, type: c.type ?? 'text', dbType: c.type ?? 'text', nullable: true }, type: c.type, loose: false, kind: 'postgres', binder }));
      shape = new RowShape(cols, this.render, false, rowRenderer(cols, this.render, false), sources);
      this.shapes.set(sig, shape);
    }
    return shape;
  }
}
