import { Message, type Metadata } from '../../core/message.js';
import type { DescribedTable } from '../../core/route.js';
import type { SourceColumn } from '../sql/values/bind.js';
import { rowRenderer, type RenderColumn } from '../sql/values/render.js';
import { RowFields, RowShape } from '../sql/values/row-fields.js';
import type { ColumnInfo, TableInfo } from '../sql/types.js';
import type { MysqlDialect } from './dialect.js';
import { mysqlAttributes, mysqlType } from './types.js';

/** The shape of rows with one list of columns: how they render, and each value's fix. */
interface Layout {
  cols: ColumnInfo[];
  shape: RowShape;
  fix: ((v: unknown) => unknown)[];
}

/**
 * One captured table: its columns as the plain MariaDB/MySQL source renders them (the same
 * RenderColumns its RowMessages builds from introspection), so a row read from the binlog gives
 * the payload `bridge copy` of that row gives. Values are brought to what mysql2 hands the copy
 * (bridge's driver options: decimals and big integers as exact text, dates as text, JSON as text).
 * A binlog row names its columns (binlog_row_metadata=FULL): rows written before or after an
 * ALTER TABLE get a layout of their own, with the columns they have.
 */
export class CapturedTable {
  readonly shape: RowShape;
  /** Every column introspection has shown, by name: a row written before a DROP COLUMN still has it. */
  private readonly known = new Map<string, ColumnInfo>();
  private readonly layouts = new Map<string, Layout>();

  constructor(
    readonly name: string,
    public info: TableInfo,
    private readonly dialect: MysqlDialect,
  ) {
    this.refresh(info);
    this.shape = this.layout(info.columns.map((c) => c.name))!.shape;
  }

  /** Column lists of the binlog (names and type codes of a table map) the table was introspected for in this run. */
  private readonly checked = new Set<string>();
  private pending: string | undefined;
  /** The columns of the last row made into a message. */
  lastColumns: ColumnInfo[] = [];

  /** The table as introspected again (after a column change read from the binlog). */
  refresh(info: TableInfo): void {
    this.info = info;
    for (const c of info.columns) this.known.set(c.name, c);
    this.layouts.clear();
    if (this.pending !== undefined) this.checked.add(this.pending);
  }

  /**
   * The layout of rows with columns `names`, cached under `key` (the table map's columns). Each
   * column as introspection shows it, unless the table map (`binlog`: how it was when the change was
   * written) says another type — a column renamed, dropped or changed since: then as the table map says.
   */
  private layout(names: string[], key = names.join('\u0000'), binlog?: BinlogColumn[]): Layout | undefined {
    let l = this.layouts.get(key);
    if (l) return l;
    const info: ColumnInfo[] = [];
    for (const n of names) {
      const known = this.known.get(n);
      const b = binlog?.find((x) => x.COLUMN_NAME === n);
      const c = known && (!b || sameType(known.dbType, b)) ? known : fromBinlog(b);
      if (!c) return undefined;
      info.push(c);
    }
    const render: RenderColumn[] = info.map((c) => ({ name: c.name, type: c.type, elem: c.elem, scale: c.scale, variant: c.variant, floatBits: c.floatBits }));
    const opts = { timestamps: 'text' as const };
    const sources: SourceColumn[] = info.map((c) => ({ col: c, type: c.type, loose: false, kind: this.dialect.kind, binder: this.dialect.binder }));
    l = { cols: info, shape: new RowShape(render, opts, false, rowRenderer(render, opts, false), sources), fix: info.map((c) => valueFix(c.variant, c.type, c.dbType.toLowerCase())) };
    this.layouts.set(key, l);
    return l;
  }

  /**
   * A binlog row (column name → the reader's value, in the event's column order) as a message, or
   * undefined when the table must be introspected first: its table map (`binlogColumns`, names and
   * type codes) is one this run has not introspected it for — the first, or one after an ALTER
   * TABLE — or it has a column introspection has not shown.
   */
  message(row: Record<string, unknown>, binlogColumns: string, binlog: BinlogColumn[] | undefined, meta: Metadata, seed: string | (() => string)): Message | undefined {
    if (!this.checked.has(binlogColumns)) {
      this.pending = binlogColumns;
      return undefined;
    }
    const names = Object.keys(row);
    const l = this.layout(names, binlogColumns, binlog);
    if (!l) return undefined;
    this.lastColumns = l.cols;
    const values = names.map((n, i) => (row[n] === null ? null : l.fix[i]!(row[n])));
    return Message.lazy(new RowFields(l.shape, values), meta, seed);
  }

  /** A row of the initial snapshot (values in the table's column order, as the copy reads them). */
  copied(values: unknown[], meta: Metadata, seed: string | (() => string)): Message {
    return Message.lazy(new RowFields(this.shape, values), meta, seed);
  }

  /** Whether an update's row images differ in the primary key. */
  keyChanged(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
    const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('hex') : String(v));
    return this.info.primaryKey.some((k) => text(before[k]) !== text(after[k]));
  }

  /** The key of a row of the table (its primary key's values as text), for the initial copy's ids and progress. */
  keyOf(values: unknown[]): unknown[] {
    return this.info.primaryKey.map((k) => {
      const v = values[this.info.columns.findIndex((c) => c.name === k)];
      return Buffer.isBuffer(v) ? { hex: v.toString('hex') } : v;
    });
  }

  /** As the plain MariaDB/MySQL source describes the table (SqlSource.describeTable); `cols`: with these columns (a row's, in the stream). */
  describe(cols = this.info.columns): DescribedTable {
    const kind = this.dialect.kind;
    const columns = cols.map((c) => ({ name: c.name, type: c.type, dbType: c.dbType, kind, nullable: c.nullable, detail: { col: c, type: c.type, loose: false, kind, binder: this.dialect.binder } }));
    return { columns, primaryKey: this.info.primaryKey, unique: this.info.uniqueSets, detail: { ...this.info, columns: cols } };
  }
}

/**
 * Where the binlog reader's value differs from the copy's: YEAR 0000 is stored as 0 and comes as
 * 1900 (not a YEAR value: the range is 1901-2155 and 0); an ENUM's '' (index 0, an invalid value
 * stored in non-strict mode) comes as undefined; with binlog_row_metadata=FULL the reader cannot
 * tell MariaDB's UUID and INET4/INET6 from binary and gives their bytes (trailing zeros cut), which
 * are formatted here as the server prints them. Everything else already matches.
 */
function valueFix(variant: string | undefined, type: string, dbType: string): (v: unknown) => unknown {
  if (variant === 'year') return (v) => (v === 1900 ? 0 : v);
  if (dbType === 'uuid') return (v) => (Buffer.isBuffer(v) ? padded(v, 16).toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-') : v);
  if (dbType === 'inet4') return (v) => (Buffer.isBuffer(v) ? [...padded(v, 4)].join('.') : v);
  if (dbType === 'inet6') return (v) => (Buffer.isBuffer(v) ? inet6(padded(v, 16)) : v);
  if (variant === 'enum') return (v) => (v === undefined ? '' : v);
  if (type === 'bytes') return (v) => (typeof v === 'string' ? Buffer.from(v, 'binary') : v);
  return (v) => v;
}

/** A column as the reader describes it from a table map with names (binlog_row_metadata=FULL): information_schema's COLUMN_TYPE form. */
export interface BinlogColumn {
  COLUMN_NAME: string;
  COLUMN_TYPE: string;
  UNSIGNED?: boolean;
}

/**
 * A column that is no longer in the table (renamed or dropped since the change was written), typed
 * from the table map as the plain source would type its information_schema row. Close, not the
 * same, where MariaDB keeps the type outside the binlog: its JSON (a LONGTEXT with a check) reads as text.
 */
function fromBinlog(b: BinlogColumn | undefined): ColumnInfo | undefined {
  if (!b) return undefined;
  const ct = `${b.COLUMN_TYPE}${b.UNSIGNED ? ' unsigned' : ''}`.toLowerCase();
  const dt = /^[a-z0-9]+/.exec(ct)?.[0] ?? ct;
  const [, p, sc] = /\((\d+)(?:,(\d+))?\)/.exec(ct) ?? [];
  const fraction = ['datetime', 'timestamp', 'time'].includes(dt) ? (p ?? 0) : null;
  return { name: b.COLUMN_NAME, type: mysqlType(dt, ct), dbType: ct, nullable: true, ...(sc === undefined ? {} : { scale: Number(sc) }), ...mysqlAttributes(dt, ct, p ?? null, p ?? null, sc ?? null, fraction) };
}

/** MariaDB's own types (UUID, INET4, INET6) are binary in the table map: introspection alone names them. */
const PLUGIN_TYPES = new Set(['uuid', 'inet4', 'inet6']);

/**
 * A column type as the binlog and introspection can both say it: integer size and sign, string
 * length, decimal precision, else the base type (display widths aside: `int(11)` and `int` agree).
 */
export function typeKey(columnType: string): string {
  const t = columnType.toLowerCase();
  const base = /^[a-z0-9]+/.exec(t)?.[0] ?? t;
  if (/int$/.test(base)) return `${base}${/unsigned/.test(t) ? ' unsigned' : ''}`;
  if (['char', 'varchar', 'binary', 'varbinary', 'decimal'].includes(base)) return `${base}${/\([^)]*\)/.exec(t)?.[0] ?? ''}`;
  return base;
}

/** Whether a table map's column is the type introspection shows. */
function sameType(dbType: string, b: BinlogColumn): boolean {
  return PLUGIN_TYPES.has(dbType.toLowerCase()) || typeKey(dbType) === typeKey(`${b.COLUMN_TYPE}${b.UNSIGNED ? ' unsigned' : ''}`);
}

const padded = (b: Buffer, n: number): Buffer => (b.length >= n ? b : Buffer.concat([b, Buffer.alloc(n - b.length)]));

/** An IPv6 address as MariaDB prints INET6: RFC 5952, IPv4-mapped and -compatible addresses dotted. */
function inet6(b: Buffer): string {
  const v4 = `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  if (b.subarray(0, 10).every((x) => x === 0)) {
    if (b[10] === 0xff && b[11] === 0xff) return `::ffff:${v4}`;
    if (b[10] === 0 && b[11] === 0 && b.readUInt32BE(12) > 1) return `::${v4}`;
  }
  const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2));
  // The longest run of two or more zero groups (the first on a tie) becomes '::'.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j > i ? j : i + 1;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}
