import type { Message } from '../../../core/message.js';
import type { RowSet } from '../../../core/row-set.js';
import type { DescribedColumn, DescribedTable, PlanItem } from '../../../core/route.js';
import { assess } from '../values/assess.js';
import { PASS_THROUGH, type SourceColumn } from '../values/bind.js';
import { ColumnLists } from './column-lists.js';
import { ColumnRows, type ColumnRowsOptions, type Row } from './column-rows.js';
import type { Database } from '../database.js';
import { SqlRowSet } from '../row-set.js';
import type { ColumnInfo } from '../types.js';
import { changeSteps, hasChanges, overlay, segments, type ChangeStep, type Group, type Segment } from './write-mirror.js';
import { fitRows } from './statement-bytes.js';
import { chunkByParams, StatementWriter, type Statement } from './writer.js';

export type { ChangeStep, Group, Segment } from './write-mirror.js';

export type { Row } from './column-rows.js';

export interface ColumnsOptions extends ColumnRowsOptions {
  /** Called after a batch is written with the number of values it wrote through a lossy mapping. */
  onLossy?(count: number): void;
  /** Warns once (a change-capture source without key=). */
  warn?(text: string): void;
}

/**
 * columns=auto: messages become rows (ColumnRows) written with multi-row INSERTs, or upserts with
 * key (the last of several messages with the same key in one batch wins). With key, a batch from
 * change capture is applied as the source changed: deletes delete by key, a truncate empties the
 * table, inserts and updates upsert, in commit order (a mirror of the source table).
 */
export class ColumnsWriter extends StatementWriter {
  protected readonly rows: ColumnRows;
  private warnedChanges = false;
  private readonly lists = new ColumnLists();

  constructor(
    db: Database,
    protected readonly o: ColumnsOptions,
  ) {
    super(db);
    this.rows = new ColumnRows(db.dialect.binder, o);
  }

  protected get key(): ColumnInfo[] | undefined {
    return this.rows.key;
  }

  override async write(messages: Message[]): Promise<void> {
    if (hasChanges(messages)) {
      if (this.key) return this.applyChanges(messages);
      if (!this.warnedChanges) this.o.warn?.(`change capture into ${this.o.table} without key=: deletes and truncates cannot be applied (they are written as rows); give key=<primary key> to mirror the table`);
      this.warnedChanges = true;
    }
    const groups = this.groups(messages);
    await this.load(groups);
    this.countLossy(groups.flatMap((g) => g.rows));
  }

  /** A batch read ahead (Sink.ahead): kinds that load faster once converted may convert it while they wait. */
  ahead(_messages: Message[]): void {}

  /** Rows read from a SQL table, converted column by column without a message per row. */
  async writeRows(set: RowSet): Promise<boolean> {
    if (!(set instanceof SqlRowSet)) return false;
    await set.restore();
    const rows = set.arrays();
    const converted = new Array<Row>(rows.length);
    for (let i = 0; i < rows.length; i++) converted[i] = this.rows.rowOf(set.shape, rows[i]!);
    const groups = this.groupsOf(converted);
    await this.load(groups);
    this.countLossy(converted);
    return true;
  }

  /**
   * Whether rows of `source` are appended without a value being converted: every source column
   * has a target column whose converter passes the driver's value through, and nothing is extra.
   */
  appendsUnchanged(source: DescribedTable | undefined): boolean {
    if (!source || this.key || this.rows.extra) return false;
    const b = this.db.dialect.binder;
    return source.columns.every((c) => {
      const t = this.rows.columnFor(c.name);
      return t !== undefined && c.detail !== undefined && b.compile(t, c.detail as SourceColumn) === PASS_THROUGH;
    });
  }

  /** Values written through a lossy mapping are counted once their batch is written. */
  protected countLossy(rows: Row[]): void {
    let n = 0;
    for (const r of rows) n += r.lossy;
    this.lossyWritten(n);
  }

  protected lossyWritten(n: number): void {
    if (n) this.o.onLossy?.(n);
  }

  /** A batch of changes, in order, in one transaction: per segment a truncate, then deletes and upserts by key. */
  private async applyChanges(messages: Message[]): Promise<void> {
    const segs = segments(messages, (m) => this.rows.row(m));
    const { steps, written } = this.changeSteps(segs);
    await this.applySteps(steps, segs);
    this.countLossy(written);
  }

  private changeSteps(segs: Segment[]): { steps: ChangeStep[]; written: Row[] } {
    return changeSteps(this.db.dialect, this.o.table, this.key!, segs, (rows) => this.group(rows));
  }

  /** Runs a batch's changes (`steps` of `segs`) in one transaction, upserts as multi-row statements (kinds with a faster bulk upsert override). */
  protected async applySteps(steps: ChangeStep[], _segs: Segment[]): Promise<void> {
    this.statementBytes = await this.db.statementLimit();
    await this.execute(this.flat(steps));
  }

  private flat = (steps: ChangeStep[]): Statement[] => steps.flatMap((s) => (Array.isArray(s) ? this.statementsOf(s) : [s]));

  /** Writes converted rows (statements in one transaction; kinds override with faster loads). */
  protected async load(groups: Group[]): Promise<void> {
    this.statementBytes = await this.db.statementLimit();
    await this.execute(this.statementsOf(groups));
  }

  /** Converted rows, the last of each key, grouped by column list. */
  groups(messages: Message[]): Group[] {
    return this.groupsOf(messages.map((m) => this.rows.row(m)));
  }

  private groupsOf(rows: Row[]): Group[] {
    if (this.key) {
      // The same key twice in one statement is an error in PostgreSQL; the last one wins (decisions §5).
      // Columns a later change does not carry keep the earlier change's values (overlay).
      const last = new Map<string, { i: number; row: Row }>();
      rows.forEach((r, i) => {
        if (r.keyText === undefined) return;
        const before = last.get(r.keyText);
        last.set(r.keyText, { i, row: before ? overlay(before.row, r) : r });
      });
      // Rows with distinct keys (a copy, most batches of changes) stay as they are.
      if (last.size < rows.filter((r) => r.keyText !== undefined).length) {
        const kept: Row[] = [];
        rows.forEach((r, i) => {
          if (r.keyText === undefined) kept.push(r);
          else if (last.get(r.keyText)!.i === i) kept.push(last.get(r.keyText)!.row);
        });
        rows = kept;
      }
    }
    return this.group(rows);
  }

  private group(rows: Row[]): Group[] {
    const groups = new Map<ColumnInfo[], Group>();
    // Rows of one source shape share their column array; others are matched through ColumnLists.
    let last: Group | undefined;
    for (const r of rows) {
      if (last && r.cols === last.cols) {
        last.rows.push(r);
        continue;
      }
      const cols = this.lists.of(r.cols);
      last = groups.get(cols);
      if (last) last.rows.push(r);
      else groups.set(cols, (last = { cols, rows: [r] }));
    }
    return [...groups.values()];
  }

  /** The batch's statements (locate probes messages one by one with them: a delete is probed as a delete). */
  statements(messages: Message[]): Statement[] {
    if (!this.key || !hasChanges(messages)) return this.statementsOf(this.groups(messages));
    return this.flat(this.changeSteps(segments(messages, (m) => this.rows.row(m))).steps);
  }

  protected statementsOf(groups: Group[]): Statement[] {
    const out: Statement[] = [];
    for (const { cols, rows: group } of this.statementBytes ? fitRows(groups, this.statementBytes) : groups) {
      for (const part of chunkByParams(group, cols.length, this.db.dialect.maxParams)) {
        const params = new Array<unknown>(part.length * cols.length);
        let n = 0;
        for (const row of part) for (let k = 0; k < cols.length; k++) params[n++] = row.values[k];
        out.push({ sql: this.insertSql(cols, part.length), params, reuse: true });
      }
    }
    return out;
  }

  /**
   * The INSERT of `count` rows into `cols`, kept per column list and row count: a busy listener
   * sends batches of the same few sizes, and building the text (a cast per value) cost more than
   * the values.
   */
  private insertSql(cols: ColumnInfo[], count: number): string {
    let byCount = this.sqlCache.get(cols);
    if (!byCount) this.sqlCache.set(cols, (byCount = new Map()));
    let sql = byCount.get(count);
    if (sql !== undefined) return sql;
    const d = this.db.dialect;
    const names = cols.map((c) => c.name);
    const keyNames = this.key?.map((k) => k.name);
    const update = keyNames ? names.filter((x) => !keyNames.includes(x)) : undefined;
    const tuples = new Array<string>(count);
    for (let r = 0, p = 0; r < count; r++) {
      let t = '(';
      for (let k = 0; k < cols.length; k++) t += (k ? ',' : '') + d.castParam(d.param(++p), cols[k]!);
      tuples[r] = t + ')';
    }
    const fixed = keyNames && cols.filter((c) => c.fixedIdentity && !keyNames.includes(c.name)).map((c) => c.name);
    const looseKeys = keyNames && cols.filter((c) => c.looseEquality && keyNames.includes(c.name)).map((c) => c.name);
    sql = d.insertRows(d.table(this.o.table), names, tuples, keyNames, update, fixed, looseKeys);
    if (byCount.size >= 64) byCount.clear();
    byCount.set(count, sql);
    return sql;
  }

  private readonly sqlCache = new WeakMap<ColumnInfo[], Map<number, string>>();

  /** Dry run: how each source column lands (column, cast, and the values it would change or refuse), from the source's types. */
  mapping(source: DescribedColumn[]): PlanItem[] {
    const b = this.db.dialect.binder;
    return source.map((c) => {
      const t = this.rows.columnFor(c.name);
      const g = t ? undefined : this.rows.generatedFor(c.name);
      if (g) return { label: `  ${c.name} ${c.dbType}`, value: `→ ${g.name} ${g.dbType} (generated: computed by the target, not written)` };
      if (!t) return { label: `  ${c.name}`, value: this.rows.extra ? `→ ${this.rows.extra.name} (extra fields object)` : '→ dropped (no such column)' };
      const castText = this.db.dialect.castParam('$n', t);
      const cast = castText === '$n' ? t.dbType : `::${castText.split('::')[1]}`;
      const src = c.detail as (SourceColumn & { profile?: Record<string, number | string> }) | undefined;
      const v = src ? assess({ col: src.col, binder: src.binder, profile: src.profile }, { col: t, binder: b }) : { lossy: [], rejects: [] };
      const flags = `${v.lossy.length ? `  LOSSY: ${v.lossy.join('; ')}` : ''}${v.rejects.length ? `  REJECTS: ${v.rejects.join('; ')}` : ''}`;
      return { label: `  ${c.name} ${c.dbType}`, value: `→ ${t.name} ${t.dbType}${cast !== t.dbType ? ` (cast ${cast})` : ''}${flags}` };
    });
  }

  plan(): PlanItem[] {
    const map = this.o.info.columns.map((c) => `${c.name} ${c.dbType}${c === this.rows.extra ? ' (extra fields as one JSON object)' : ''}`).join(', ');
    const items: PlanItem[] = [{ label: 'columns', value: `payload fields → columns of the same name, converted to each type: ${map}` }];
    const generated = this.o.info.columns.filter((c) => c.generated).map((c) => c.name);
    if (generated.length) items.push({ label: 'generated', value: `${generated.join(', ')}: computed by the target, left out of the insert` });
    if (this.key) items.push({ label: 'key', value: `${this.key.map((k) => k.name).join(', ')}: rows with an existing key are updated; the last of duplicates in a batch wins` });
    if (!this.rows.extra) items.push({ label: 'unmatched fields', value: 'dropped (one warning per field name, counted in the summary)' });
    return items;
  }
}
