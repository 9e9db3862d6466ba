import { configError, rejectedError } from '../../../core/errors.js';
import type { RawField } from '../../../core/json-fields.js';
import type { Message } from '../../../core/message.js';
import { assess, lossyValues } from '../values/assess.js';
import { NEED_FIELD, PASS_THROUGH, Reject, type Binder, type Converter, type NativeConverter } from '../values/bind.js';
import { RowFields, type RowShape } from '../values/row-fields.js';
import type { ColumnInfo, TableInfo } from '../types.js';

/** One message (or one source row moved without a message) as the values of the columns it maps to. */
export interface Row {
  m: Message | undefined;
  cols: ColumnInfo[];
  values: unknown[];
  keyText: string | undefined;
  lossy: number; // values written through a lossy mapping
}

interface ShapePlan {
  targets: (ColumnInfo | undefined)[];
  converters: (Converter | undefined)[];
  natives: (NativeConverter | undefined)[]; // where the driver's value alone may do (Binder.nativeConverter)
  /** The same for rows of a message: none that leaves a check to the database (its refusal would not name the field). */
  messageNatives: (NativeConverter | undefined)[];
  /** Columns whose mapping the dry run calls LOSSY: which of their values are counted (undefined: none). */
  lossy: (((value: unknown) => boolean) | undefined)[];
  /** The target columns of every row of the shape (extra_column last): one array shared by all. */
  cols: ColumnInfo[];
}

export interface ColumnRowsOptions {
  table: string;
  info: TableInfo;
  extraColumn: string | undefined;
  key: string[] | undefined;
  /** Called once per distinct field that has no column and no extra_column (then counted). */
  onDropped(fields: string[], count: number): void;
}

/**
 * columns=auto's mapping: each payload field into the column of the same name (exact, then
 * case-insensitive where unique), converted by the kind's binder; unmatched fields into
 * extra_column as one JSON object, or dropped and counted; one whose column the target generates
 * is left out (an insert naming it fails). Rows from a SQL source are converted with a plan
 * compiled once per result shape.
 */
export class ColumnRows {
  protected readonly exact = new Map<string, ColumnInfo>();
  private readonly folded = new Map<string, ColumnInfo | null>();
  readonly extra: ColumnInfo | undefined;
  readonly key: ColumnInfo[] | undefined;
  private readonly warned = new Set<string>();

  constructor(
    private readonly binder: Binder,
    private readonly o: ColumnRowsOptions,
  ) {
    const col = (name: string, field: string): ColumnInfo => {
      const c = o.info.columns.find((x) => x.name === name);
      if (!c) throw configError(`${field} "${name}" is not a column of ${o.table} (columns: ${o.info.columns.map((x) => x.name).join(', ')})`);
      return c;
    };
    if (o.extraColumn !== undefined) {
      this.extra = col(o.extraColumn, 'extra_column');
      if (this.extra.type !== 'json' && this.extra.type !== 'text') throw configError(`extra_column ${this.extra.name} is ${this.extra.dbType}; it must be a JSON or text column`);
    }
    if (o.key) {
      this.key = o.key.map((k) => col(k, 'key'));
      const want = [...o.key].sort().join(',');
      if (!o.info.uniqueSets.some((s) => [...s].sort().join(',') === want))
        throw configError(`key (${o.key.join(', ')}) needs a primary key or unique index on exactly those columns of ${o.table}`);
    }
    for (const c of o.info.columns) {
      if (c === this.extra || c.generated) continue;
      this.exact.set(c.name, c);
      const lower = c.name.toLowerCase();
      this.folded.set(lower, this.folded.has(lower) ? null : c);
    }
  }

  columnFor(field: string): ColumnInfo | undefined {
    return this.exact.get(field) ?? this.folded.get(field.toLowerCase()) ?? undefined;
  }

  /** The generated column of the target a field would have gone to (it is left out), if any. */
  generatedFor(field: string): ColumnInfo | undefined {
    const lower = field.toLowerCase();
    return this.columnFor(field) ? undefined : this.o.info.columns.find((c) => c.generated && c.name.toLowerCase() === lower);
  }

  /** Converters of a JSON payload (no source types), one per target column, compiled on first use. */
  private readonly jsonConverters = new Map<ColumnInfo, Converter>();
  /** Per source row shape: the target column and converter of each source column (compiled once). */
  private readonly plans = new WeakMap<RowShape, ShapePlan>();

  private planFor(shape: RowShape): ShapePlan {
    let p = this.plans.get(shape);
    if (!p) {
      const b = this.binder;
      const targets = shape.columns.map((c) => this.columnFor(c.name));
      const sources = shape.sources;
      p = {
        targets,
        converters: targets.map((t, i) => (t ? b.compile(t, sources[i]) : undefined)),
        natives: targets.map((t, i) => (t ? b.nativeConverter(t, sources[i], { serverChecks: true, rfc3339: shape.rfc3339 }) : undefined)),
        messageNatives: targets.map((t, i) => (t ? b.nativeConverter(t, sources[i], { rfc3339: shape.rfc3339 }) : undefined)),
        lossy: targets.map((t, i) => (t !== undefined && sources[i] !== undefined ? lossyValues(assess(sources[i]!, { col: t, binder: b })) : undefined)),
        cols: [...targets.filter((t): t is ColumnInfo => t !== undefined), ...(this.extra ? [this.extra] : [])],
      };
      this.plans.set(shape, p);
    }
    return p;
  }

  private convert(conv: Converter, f: RawField, native: unknown, m: Message | undefined, name: string): unknown {
    try {
      return conv(f, native);
    } catch (e) {
      // A row without a message is rejected unnamed: the engine writes its batch again as messages to name it.
      if (e instanceof Reject) throw m ? rejectedError(`message ${m.idHex}: field ${name} ${e.message}`, undefined, m.idHex) : rejectedError(`field ${name} ${e.message}`);
      throw e;
    }
  }

  /**
   * The target column of each source column when every one passes through unchanged (same type on
   * the same kind, nothing extra, nothing dropped): the source's wire rows are then the target's.
   */
  passThrough(shape: RowShape): ColumnInfo[] | undefined {
    if (this.extra) return undefined;
    const plan = this.planFor(shape);
    if (!plan.converters.every((c) => c === PASS_THROUGH)) return undefined;
    return plan.targets as ColumnInfo[];
  }

  /**
   * Column i of a source row as the target's value. A pass-through column needs only the driver's
   * value (its field is never built), nor does a value the native converter takes; a value it would
   * refuse (a kind's out* check) goes the full way, which names the field.
   */
  private valueAt(plan: ShapePlan, shape: RowShape, row: unknown[], i: number, m: Message | undefined): unknown {
    const conv = plan.converters[i]!;
    const native = row[i];
    if (conv === PASS_THROUGH) return native ?? null;
    const nat = native === null || native === undefined ? undefined : (m ? plan.messageNatives : plan.natives)[i];
    if (nat) {
      try {
        const quick = nat(native);
        if (quick !== NEED_FIELD) return quick;
      } catch {
        // Refused by the shortcut: the full converter names it.
      }
    }
    return this.convert(conv, shape.field(row, i), native, m, shape.columns[i]!.name);
  }

  /** A source row (driver values in `shape`'s order) as column values, without a message. */
  rowOf(shape: RowShape, values: unknown[]): Row {
    return this.fromShape(shape, values, undefined);
  }

  /** The target column of every column of `shape`, in its order, when each has one and nothing is extra; else undefined. */
  columnsOf(shape: RowShape): ColumnInfo[] | undefined {
    const plan = this.planFor(shape);
    return this.extra || plan.targets.includes(undefined) ? undefined : plan.cols;
  }

  /**
   * A source row's values converted into `out` (one array reused from row to row: no Row and no
   * array per row), for a shape columnsOf() answered; returns how many were written lossily.
   */
  valuesInto(shape: RowShape, row: unknown[], out: unknown[]): number {
    const plan = this.planFor(shape);
    let lossy = 0;
    for (let i = 0; i < row.length; i++) {
      out[i] = this.valueAt(plan, shape, row, i, undefined);
      if (plan.lossy[i]?.(row[i])) lossy++;
    }
    return lossy;
  }

  row(m: Message): Row {
    const fields = m.fields();
    if (!fields) throw rejectedError(`message ${m.idHex} is not a JSON object; columns=auto maps object fields to columns`, undefined, m.idHex);
    if (fields instanceof RowFields) return this.fromShape(fields.shape, fields.values, m);
    const cols: ColumnInfo[] = [];
    const values: unknown[] = [];
    let extra: [string, RawField][] | undefined;
    let dropped: string[] | undefined;
    for (const [name, f] of fields) {
      const c = this.columnFor(name);
      if (!c) {
        if (this.generatedFor(name)) continue;
        if (this.extra) (extra ??= []).push([name, f]);
        else (dropped ??= []).push(name);
        continue;
      }
      let conv = this.jsonConverters.get(c);
      if (!conv) this.jsonConverters.set(c, (conv = this.binder.compile(c)));
      cols.push(c);
      values.push(this.convert(conv, f, undefined, m, name));
    }
    if (this.extra) cols.push(this.extra);
    return this.finish(m, cols, values, extra, dropped, 0);
  }

  private fromShape(shape: RowShape, row: unknown[], m: Message | undefined): Row {
    const plan = this.planFor(shape);
    const names = shape.columns;
    const values: unknown[] = [];
    let extra: [string, RawField][] | undefined;
    let dropped: string[] | undefined;
    let lossy = 0;
    for (let i = 0; i < names.length; i++) {
      const c = plan.targets[i];
      const native = row[i];
      if (!c) {
        if (this.generatedFor(names[i]!.name)) continue;
        if (this.extra) (extra ??= []).push([names[i]!.name, shape.field(row, i)]);
        else (dropped ??= []).push(names[i]!.name);
        continue;
      }
      values.push(this.valueAt(plan, shape, row, i, m));
      if (plan.lossy[i]?.(native)) lossy++;
    }
    return this.finish(m, plan.cols, values, extra, dropped, lossy);
  }

  /** `cols` holds extra_column already when there is one (its value is added here). A row with no column is refused (it was counted as written). */
  private finish(m: Message | undefined, cols: ColumnInfo[], values: unknown[], extra: [string, RawField][] | undefined, dropped: string[] | undefined, lossy: number): Row {
    if (cols.length === 0) throw rejectedError(`${m ? `message ${m.idHex}: ` : ''}no field of it is a column of ${this.o.table}${dropped ? ` (it has ${dropped.join(', ')})` : ''}: nothing of it would be written`, undefined, m?.idHex);
    if (this.extra) {
      values.push(extra ? `{${extra.map(([k, f]) => `${JSON.stringify(k)}:${f.raw}`).join(',')}}` : '{}');
    }
    if (dropped) {
      const fresh = dropped.filter((x) => !this.warned.has(x));
      this.o.onDropped(fresh, dropped.length); // may refuse (change capture): the field is then refused again
      for (const x of fresh) this.warned.add(x);
    }
    let keyText: string | undefined;
    if (this.key?.length === 1) {
      // One key column: no array per row; 'k' keeps it apart from write-mirror.ts's '#n'.
      const p = values[cols.indexOf(this.key[0]!)];
      if (p !== undefined && p !== null) keyText = `k${Buffer.isBuffer(p) ? p.toString('hex') : String(p)}`;
    } else if (this.key) {
      const parts = this.key.map((k) => values[cols.indexOf(k)]);
      if (parts.every((p) => p !== undefined && p !== null)) keyText = JSON.stringify(parts.map((p) => (Buffer.isBuffer(p) ? p.toString('hex') : String(p))));
    }
    return { m, cols, values, keyText, lossy };
  }
}
