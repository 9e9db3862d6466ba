import { createHash } from 'node:crypto';
import type { Position } from './cursor-frontier.js';
import type { Dialect } from '../dialect.js';
import { rawText } from '../values/raw-text.js';
import type { ColumnInfo, SqlResult } from '../types.js';

/**
 * The SQL of cursor paging over one column, optionally with the primary key as tie-breaker:
 * conditions for "after a position" and "within a window", and each row's position and identity.
 */
export class CursorQuery {
  /** (cursor, key…) when paging by the pair, [cursor] otherwise. */
  readonly order: ColumnInfo[];

  constructor(
    private readonly d: Dialect,
    readonly column: ColumnInfo,
    /** Primary key columns when pages are keyset on (cursor, key); empty for run-based paging. */
    readonly key: ColumnInfo[],
  ) {
    this.order = [column, ...key];
  }

  get keyed(): boolean {
    return this.key.length > 0;
  }

  orderBy(): string {
    return this.order.map((c) => this.d.quote(c.name)).join(', ');
  }

  /** Rows after `pos` (all rows with a cursor value when undefined). */
  after(pos: Position | undefined, params: unknown[]): string {
    const c = this.d.quote(this.column.name);
    if (!pos) return `${c} IS NOT NULL`;
    if (this.keyed && pos.key) return this.d.keysetAfter(this.order, [pos.value, ...pos.key], params);
    return `${c} > ${this.d.cursorValue(this.column.type, pos.value, params)}`;
  }

  /**
   * Rows in (from, to], written so that an index on (cursor, key) bounds both ends: within one cursor
   * value the key bounds the range; across values the cursor does, and the rows of the last value
   * past `to` are filtered (an index cannot end a row-value range exactly).
   */
  between(from: Position | undefined, to: Position, params: unknown[]): string {
    const d = this.d;
    const c = d.quote(this.column.name);
    if (!this.keyed || !to.key) return `${this.after(from, params)} AND ${c} <= ${d.cursorValue(this.column.type, to.value, params)}`;
    if (from?.key && from.value === to.value) {
      const eq = `${c} = ${d.cursorValue(this.column.type, to.value, params)}`;
      return `${eq} AND ${d.keysetAfter(this.key, from.key, params)} AND ${d.keysetAtMost(this.key, to.key, params)}`;
    }
    const lower = this.after(from, params);
    const upper = `${c} <= ${d.cursorValue(this.column.type, to.value, params)}`;
    const past = `${c} = ${d.cursorValue(this.column.type, to.value, params)} AND ${d.keysetAfter(this.key, to.key, params)}`;
    return `${lower} AND ${upper} AND NOT (${past})`;
  }

  /** Rows with `pos`'s cursor value, up to its key: where a tie committed after a read lands. */
  tiesUpTo(pos: Position, params: unknown[]): string {
    const c = this.d.quote(this.column.name);
    const eq = `${c} = ${this.d.cursorValue(this.column.type, pos.value, params)}`;
    return this.keyed && pos.key ? `${eq} AND ${this.d.keysetAtMost(this.key, pos.key, params)}` : eq;
  }

  /** The position a row stands at. */
  positionOf(res: SqlResult, row: unknown[]): Position {
    const ci = this.index(res, this.column.name);
    if (!this.keyed) return { value: rawText(row[ci]) };
    return { value: rawText(row[ci]), key: this.key.map((k) => rawText(row[this.index(res, k.name)])) };
  }

  /** The cursor values of rows, as exact text. */
  valuesOf(res: SqlResult, rows: unknown[][]): string[] {
    const ci = this.index(res, this.column.name);
    return rows.map((r) => rawText(r[ci]));
  }

  /**
   * What tells row versions apart: the cursor value with the key, or a hash of every value for
   * tables without one. The cursor value belongs in it: a row updated after its older version was
   * delivered has the same key but is a version not delivered yet, and must not count as one.
   */
  identityOf(res: SqlResult): (row: unknown[]) => string {
    if (this.keyed) {
      const idx = this.order.map((k) => this.index(res, k.name));
      return (row) => idx.map((i) => rawText(row[i])).join('\u0001');
    }
    return (row) =>
      createHash('sha1')
        .update(JSON.stringify(row.map((v) => (v === null || v === undefined ? null : rawText(v)))))
        .digest('base64');
  }

  describe(pos: Position): string {
    const head = `${this.column.name}=${pos.value}`;
    return pos.key ? `${head}, ${this.key.map((k, i) => `${k.name}=${pos.key![i]}`).join(', ')}` : head;
  }

  private index(res: SqlResult, name: string): number {
    return res.fields.findIndex((f) => f.name === name);
  }
}
