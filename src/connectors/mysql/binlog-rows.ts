import { Message, type Metadata } from '../../core/message.js';
import type { DescribedTable } from '../../core/route.js';
import type { SourceColumn } from '../sql/bind.js';
import { rowRenderer, type RenderColumn } from '../sql/render.js';
import { RowFields, RowShape } from '../sql/row-fields.js';
import type { TableInfo } from '../sql/types.js';
import type { MysqlDialect } from './dialect.js';

/**
 * One captured table: its columns as the plain MariaDB/MySQL source renders them (the same
 * RenderColumns its RowMessages builds from introspection), so a row read from the binlog gives
 * the payload `bridge copy` of that row gives. Values are brought to what mysql2 hands the copy
 * (bridge's driver options: decimals and big integers as exact text, dates as text, JSON as text).
 */
export class CapturedTable {
  readonly shape: RowShape;
  private readonly fix: ((v: unknown) => unknown)[];

  constructor(
    readonly name: string,
    readonly info: TableInfo,
    dialect: MysqlDialect,
  ) {
    const cols: RenderColumn[] = info.columns.map((c) => ({ name: c.name, type: c.type, elem: c.elem, scale: c.scale, variant: c.variant, floatBits: c.floatBits }));
    const opts = { timestamps: 'text' as const };
    const render = rowRenderer(cols, opts, false);
    const sources: SourceColumn[] = info.columns.map((c) => ({ col: c, type: c.type, loose: false, kind: dialect.kind, binder: dialect.binder }));
    this.shape = new RowShape(cols, opts, false, render, sources);
    this.fix = info.columns.map((c) => valueFix(c.variant, c.type));
  }

  /** A binlog row (column name → the reader's value) as the copy's values, in the table's column order. */
  values(row: Record<string, unknown>): unknown[] {
    return this.info.columns.map((c, i) => {
      const v = row[c.name];
      return v === null ? null : this.fix[i]!(v);
    });
  }

  message(values: unknown[], meta: Metadata, seed: string | (() => string)): Message {
    return Message.lazy(new RowFields(this.shape, values), meta, seed);
  }

  /** The key of a row of the table (its primary key's values as text), for the initial copy's ids and progress. */
  keyOf(values: unknown[]): unknown[] {
    return this.info.primaryKey.map((k) => {
      const v = values[this.info.columns.findIndex((c) => c.name === k)];
      return Buffer.isBuffer(v) ? { hex: v.toString('hex') } : v;
    });
  }

  /** As the plain MariaDB/MySQL source describes the table (SqlSource.describeTable). */
  describe(kind: string, dialect: MysqlDialect): DescribedTable {
    const columns = this.info.columns.map((c) => ({ name: c.name, type: c.type, dbType: c.dbType, kind, nullable: c.nullable, detail: { col: c, type: c.type, loose: false, kind, binder: dialect.binder } }));
    return { columns, primaryKey: this.info.primaryKey, unique: this.info.uniqueSets, detail: this.info };
  }
}

/**
 * Where the binlog reader's value differs from the copy's: YEAR 0000 is stored as 0 and comes as
 * 1900 (not a YEAR value: the range is 1901-2155 and 0); an ENUM's '' (index 0, an invalid value
 * stored in non-strict mode) comes as undefined. Everything else already matches.
 */
function valueFix(variant: string | undefined, type: string): (v: unknown) => unknown {
  if (variant === 'year') return (v) => (v === 1900 ? 0 : v);
  if (variant === 'enum') return (v) => (v === undefined ? '' : v);
  if (type === 'bytes') return (v) => (typeof v === 'string' ? Buffer.from(v, 'binary') : v);
  return (v) => v;
}
