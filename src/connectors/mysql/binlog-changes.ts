import { Message, type Metadata } from '../../core/message.js';
import { diffColumns, schemaMessage } from '../../core/schema-change.js';
import { renamesOf } from './binlog-ddl.js';
import { WHOLE_TRANSACTION_MAX } from '../sql/capture/change-batches.js';
import { advanceGtid, heldAlready, type BinlogPosition } from './binlog-position.js';
import { typeKey, type BinlogColumn, type CapturedTable } from './binlog-rows.js';

/** A transaction as the reader releases it: its messages, then its commit (a number the source maps to a position). */
export type Item = { m: Message } | { commit: bigint };

/** The few fields of the binlog reader's events this file reads. */
export interface BinlogEvent {
  getEventName(): string;
  nextPosition: number;
  gtid?: string;
  query?: string;
  schema?: string;
  standalone?: boolean;
  tableId?: number;
  tableMap?: Record<number, { parentSchema: string; tableName: string; columns?: { name: string; type: number; metadata?: unknown }[]; columnSchemas?: BinlogColumn[] }>;
  rows?: Record<string, unknown>[] | { before: Record<string, unknown>; after: Record<string, unknown> }[];
  /** Table map events: the table, and whether the event names its columns (binlog_row_metadata=FULL when written). */
  schemaName?: string;
  tableName?: string;
  hasSelfDescribingMetadata?(): boolean;
}

/** Changes per part of a transaction already cut in parts. */
const PART = 10_000;
const OPS: Record<string, string> = { writerows: 'insert', updaterows: 'update', deleterows: 'delete' };
const TRUNCATE = /^TRUNCATE\s+(?:TABLE\s+)?(?:`((?:[^`]|``)+)`|([\w$]+))(?:\.(?:`((?:[^`]|``)+)`|([\w$]+)))?/i;

/**
 * Turns the binlog's events into messages of the captured tables, one per row change (and one per
 * TRUNCATE), kept until the transaction's commit: an XID event, a COMMIT query (non-transactional
 * tables), or the end of a statement that is a transaction of its own (DDL, TRUNCATE). A message's
 * id comes from its transaction (MariaDB GTID, else the commit's file:pos) and its place in it, so
 * the same change has the same id when a restart reads it again.
 */
export class BinlogAssembler {
  private open: Item[] | undefined;
  /** The group began with BEGIN (or a MariaDB GTID event that is not standalone): it ends at its commit. */
  private began = false;
  private txGtid: string | undefined;
  private tx: { id?: string } = {};
  private n = 0;
  private seq = 0n;
  /** Commit number → the position after it (what an ack of that commit stores). */
  readonly commits = new Map<bigint, BinlogPosition>();
  /** Commit numbers that end a part of a long transaction, not the transaction (see part()). */
  readonly partCommits = new Set<bigint>();
  /** Resuming from a sink's position (exactly once): the first `count` changes of transaction `tx` are held there already. */
  resume: { tx: string; count: number } | undefined;
  /** tables=*: a table the run does not know yet is asked about (refresh, adopt) once; those it will not capture are ignored. */
  star = false;
  readonly ignored = new Set<string>();
  /** The current binlog file (the reader's rotate events). */
  file: string | undefined;
  /** Set when the sink keeps a mirror's columns in step (a database): column changes become schema messages. */
  schemaMessages = false;
  /** The position after the last commit (the stream's start at first): where a part of a long transaction leaves the stream. */
  lastPos: BinlogPosition = {};
  /** Told when a first transaction goes out in parts. */
  onSplit: (() => void) | undefined;
  /** The open transaction went out in parts already. */
  private cut = false;
  /** A table map's columns as text (names, type codes, metadata), computed once per table map, not per event. */
  private readonly signatures = new WeakMap<object, string>();
  /** Each captured table's columns as the stream last showed them (name, type). */
  private readonly seen = new Map<string, { name: string; type: string }[]>();
  /** Column renames the binlog's ALTER TABLE statements named, by table, until the next shape of that table is compared. */
  private readonly renameHints = new Map<string, [string, string][]>();

  constructor(
    private readonly database: string,
    private readonly tables: Map<string, CapturedTable>,
    private readonly ops: ReadonlySet<string>,
    private readonly sourceMetadata: boolean,
    /** MariaDB: the GTID position the stream started from, advanced at each commit. */
    private gtidPos: string | undefined,
  ) {}

  /** Takes over from a failed stream's assembler: commit numbers go on (batches in flight still confirm theirs). */
  adopt(prev: BinlogAssembler): void {
    this.seq = prev.seq;
    for (const [k, v] of prev.commits) this.commits.set(k, v);
    for (const k of prev.partCommits) this.partCommits.add(k);
  }

  get inTransaction(): boolean {
    return this.open !== undefined;
  }

  /**
   * Feeds one event; returns the transaction's items when it commits, or `refresh` (the event not
   * taken) when a row has columns the table had not when the run read it: introspect, then feed it
   * again; `unnamed`: changes of a table written without column names, which cannot be decoded safely.
   */
  onEvent(evt: BinlogEvent): Item[] | { refresh: string; adopt?: boolean } | { unnamed: string } | undefined {
    const name = evt.getEventName();
    switch (name) {
      case 'tablemap':
        // Without names the reader takes today's columns, which may not be the ones it was written with.
        return evt.schemaName === this.database && this.tables.has(evt.tableName!) && evt.hasSelfDescribingMetadata?.() === false ? { unnamed: evt.tableName! } : undefined;
      case 'mariadbgtid':
      case 'gtid':
        this.begin(evt, name === 'mariadbgtid' && evt.standalone === false);
        return undefined;
      case 'xid':
        return this.commit(evt);
      case 'query':
        return this.query(evt);
      case 'writerows':
      case 'updaterows':
      case 'deleterows':
        return this.rows(evt, OPS[name]!);
      default:
        return undefined;
    }
  }

  /** A transaction starts: its id is its GTID, or (without GTIDs) where it starts in the binlog. */
  private begin(evt: BinlogEvent, began: boolean): void {
    this.open = [];
    this.txGtid = evt.gtid;
    this.began = began;
    this.tx = { id: evt.gtid ?? `${this.file}:${evt.nextPosition}` };
    this.n = 0;
    this.cut = false;
  }

  private query(evt: BinlogEvent): Item[] | undefined {
    const text = (evt.query ?? '').trim();
    const upper = text.slice(0, 10).toUpperCase();
    if (upper === 'BEGIN') {
      if (!this.open) this.begin(evt, true);
      this.began = true;
      return undefined;
    }
    if (upper === 'COMMIT' || upper === 'ROLLBACK') return this.commit(evt);
    const ddl = renamesOf(text, evt.schema);
    if (ddl && ddl.schema === this.database && this.tables.has(ddl.table) && ddl.renames.length) this.renameHints.set(ddl.table, [...(this.renameHints.get(ddl.table) ?? []), ...ddl.renames]);
    const t = TRUNCATE.exec(text);
    if (t) {
      const first = (t[1] ?? t[2])!.replace(/``/g, '`');
      const second = (t[3] ?? t[4])?.replace(/``/g, '`');
      const [schema, table] = second === undefined ? [evt.schema, first] : [first, second];
      if (schema === this.database && this.tables.has(table) && this.ops.has('truncate')) (this.open ??= []).push({ m: this.change(table, 'truncate', evt, (meta, seed) => new Message('{}', meta, seed))! });
    }
    // DDL and TRUNCATE are transactions of their own: no commit event follows.
    return this.began ? undefined : this.commit(evt);
  }

  /** Row changes of a captured table (a part of a long transaction once it is long enough); to introspect first: adds nothing, names the table. */
  private rows(evt: BinlogEvent, op: string): Item[] | { refresh: string; adopt?: boolean } | undefined {
    const map = evt.tableMap?.[evt.tableId!];
    if (!map || map.parentSchema !== this.database || !this.ops.has(op)) return undefined;
    const table = this.tables.get(map.tableName);
    if (!table) return this.star && !this.ignored.has(map.tableName) ? { refresh: map.tableName, adopt: true } : undefined;
    const first = this.n;
    const out: Message[] = [];
    let binlogColumns = this.signatures.get(map);
    if (binlogColumns === undefined) this.signatures.set(map, (binlogColumns = JSON.stringify((map.columns ?? []).map((c) => [c.name, c.type, c.metadata]))));
    const make = (kind: string, image: Record<string, unknown>): boolean => {
      const m = this.change(map.tableName, kind, evt, (meta, seed) => table.message(image, binlogColumns, map.columnSchemas, meta, seed));
      if (m) out.push(m);
      return m !== undefined;
    };
    for (const row of evt.rows ?? []) {
      const pair = op === 'update' ? (row as { before: Record<string, unknown>; after: Record<string, unknown> }) : undefined;
      // An update of the key is the old row's delete, then the new row: a mirror applying by key would keep both otherwise.
      const ok = pair ? (!table.keyChanged(pair.before, pair.after) || make('delete', pair.before)) && make('update', pair.after) : make(op, row as Record<string, unknown>);
      if (!ok) {
        this.n = first;
        return { refresh: map.tableName };
      }
    }
    if (out.length && this.schemaMessages) this.noteShape(table, evt);
    for (const m of out) if (!heldAlready(m, this.resume)) (this.open ??= []).push({ m });
    return this.open && this.open.length >= (this.cut ? PART : WHOLE_TRANSACTION_MAX) ? this.part() : undefined;
  }

  /**
   * A transaction longer than WHOLE_TRANSACTION_MAX changes goes out in parts (the first that long,
   * then of PART) before its commit event (the binlog holds committed transactions only), so memory
   * stays bounded. A part's position is the one before the transaction, with how many of its changes
   * were sent (a sink's position, see HandedChanges); meanwhile the sink shows part of it (said once).
   */
  private part(): Item[] {
    const items = this.open!;
    this.open = [];
    this.commits.set(++this.seq, this.lastPos);
    this.partCommits.add(this.seq);
    items.push({ commit: this.seq });
    if (!this.cut) this.onSplit?.();
    this.cut = true;
    return items;
  }

  /**
   * The columns a captured table's rows have, the first time in a run or changed since: a schema
   * message goes before the changes that have them (a database sink compares them with its table
   * and follows). Its id takes no place among the transaction's changes.
   */
  private noteShape(table: CapturedTable, evt: BinlogEvent): void {
    const shape = table.describe(table.lastColumns);
    // Compared as both sources of a type can say it: a column typed from introspection (`int(11)`) and one from the table map (`int`) agree.
    const now = shape.columns.map((c) => ({ name: c.name, type: typeKey(c.dbType) }));
    const before = this.seen.get(table.name);
    if (before && JSON.stringify(before) === JSON.stringify(now)) return;
    this.seen.set(table.name, now);
    // ADD COLUMN … FIRST / AFTER puts a column anywhere: a place proves no rename here; the ALTER statement read before does.
    const changes = diffColumns(before, now, false, this.renameHints.get(table.name));
    this.renameHints.delete(table.name);
    // The transaction's GTID, or (MySQL without GTIDs) the row event's own position: stable either way.
    const at = this.tx.id ?? `${this.file}:${evt.nextPosition}`;
    (this.open ??= []).push({ m: schemaMessage(table.name, Promise.resolve({ table: shape, changes }), `mysql:${table.name}:${at}:schema:${this.n}`) });
  }

  /** A change with its metadata and id (`mysql:<table>:<gtid or commit file:pos>:<n>`, read once the commit is known). */
  private change(table: string, op: string, evt: BinlogEvent, make: (meta: Metadata, seed: () => string) => Message | undefined): Message | undefined {
    const meta: Metadata = { 'bridge.op': op, 'bridge.table': table };
    if (this.sourceMetadata) {
      if (this.file !== undefined) meta['bridge.src.binlog_file'] = this.file;
      meta['bridge.src.binlog_pos'] = String(evt.nextPosition);
      if (this.txGtid) meta['bridge.src.gtid'] = this.txGtid;
    }
    const tx = this.tx;
    const n = this.n++;
    return make(meta, () => `mysql:${table}:${tx.id}:${n}`);
  }

  private commit(evt: BinlogEvent): Item[] {
    const items = this.open ?? [];
    const pos: BinlogPosition = { ...(this.file !== undefined ? { file: this.file } : {}), pos: evt.nextPosition };
    if (this.txGtid && /^\d+-\d+-\d+$/.test(this.txGtid)) this.gtidPos = advanceGtid(this.gtidPos, this.txGtid);
    if (this.gtidPos) pos.gtid = this.gtidPos;
    this.tx.id ??= `${pos.file}:${pos.pos}`;
    this.commits.set(++this.seq, pos);
    this.lastPos = pos;
    items.push({ commit: this.seq });
    this.open = undefined;
    this.began = false;
    this.txGtid = undefined;
    return items;
  }
}

