import { configError, rejectedError } from '../../core/errors.js';
import type { RawField } from '../../core/json-fields.js';
import type { Message } from '../../core/message.js';
import type { PlanItem } from '../../core/route.js';
import { columnValue } from './convert.js';
import type { Database } from './database.js';
import type { ColumnInfo, TableInfo } from './types.js';
import { lossOf, type TypedColumn } from './lossy.js';
import { chunkByParams, StatementWriter, type Statement } from './writer.js';

export interface ColumnsOptions {
  table: string;
  info: TableInfo;
  extraColumn: string | undefined;
  key: string[] | undefined;
  /** Called once per distinct field that has no column and no extra_column (then counted). */
  onDropped(fields: string[], count: number): void;
}

export interface Row {
  m: Message;
  cols: ColumnInfo[];
  values: unknown[];
  keyText: string | undefined;
}

/** Rows of a batch that map to the same columns. */
export interface Group {
  cols: ColumnInfo[];
  rows: Row[];
}

/**
 * columns=auto: each payload field into the column of the same name (exact, then
 * case-insensitive where unique), converted for the column's type; unmatched fields into
 * extra_column as one JSON object, or dropped and counted. With key, an upsert that keeps the last
 * of several messages with the same key in one batch.
 */
export class ColumnsWriter extends StatementWriter {
  protected readonly exact = new Map<string, ColumnInfo>();
  private readonly folded = new Map<string, ColumnInfo | null>();
  private readonly extra: ColumnInfo | undefined;
  protected readonly key: ColumnInfo[] | undefined;
  private readonly warned = new Set<string>();

  constructor(
    db: Database,
    protected readonly o: ColumnsOptions,
  ) {
    super(db);
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
      if (c === this.extra) continue;
      this.exact.set(c.name, c);
      const lower = c.name.toLowerCase();
      this.folded.set(lower, this.folded.has(lower) ? null : c);
    }
  }

  private columnFor(field: string): ColumnInfo | undefined {
    return this.exact.get(field) ?? this.folded.get(field.toLowerCase()) ?? undefined;
  }

  private row(m: Message): Row {
    const fields = m.fields();
    if (!fields) throw rejectedError(`message ${m.idHex} is not a JSON object; columns=auto maps object fields to columns`, undefined, m.idHex);
    const cols: ColumnInfo[] = [];
    const values: unknown[] = [];
    let extra: [string, RawField][] | undefined;
    let dropped: string[] | undefined;
    const d = this.db.dialect;
    for (const [name, f] of fields) {
      const c = this.columnFor(name);
      if (c) {
        cols.push(c);
        values.push(columnValue(f, c, d.kind, m));
      } else if (this.extra) (extra ??= []).push([name, f]);
      else (dropped ??= []).push(name);
    }
    if (this.extra) {
      cols.push(this.extra);
      values.push(extra ? `{${extra.map(([k, f]) => `${JSON.stringify(k)}:${f.raw}`).join(',')}}` : this.extra.type === 'json' ? '{}' : '{}');
    }
    if (dropped) {
      const fresh = dropped.filter((x) => !this.warned.has(x));
      for (const x of fresh) this.warned.add(x);
      this.o.onDropped(fresh, dropped.length);
    }
    let keyText: string | undefined;
    if (this.key) {
      const parts = this.key.map((k) => {
        const i = cols.indexOf(k);
        return i < 0 ? undefined : values[i];
      });
      if (parts.every((p) => p !== undefined && p !== null)) keyText = JSON.stringify(parts.map((p) => (Buffer.isBuffer(p) ? p.toString('hex') : String(p))));
    }
    return { m, cols, values, keyText };
  }

  /** Converted rows, the last of each key, grouped by column list. */
  groups(messages: Message[]): Group[] {
    let rows = messages.map((m) => this.row(m));
    if (this.key) {
      // The same key twice in one statement is an error in PostgreSQL; the last one wins (decisions §5).
      const last = new Map<string, number>();
      rows.forEach((r, i) => r.keyText !== undefined && last.set(r.keyText, i));
      rows = rows.filter((r, i) => r.keyText === undefined || last.get(r.keyText) === i);
    }
    const groups = new Map<string, Group>();
    for (const r of rows) {
      if (r.cols.length === 0) continue;
      const sig = r.cols.map((c) => c.name).join('\u0000');
      const g = groups.get(sig);
      if (g) g.rows.push(r);
      else groups.set(sig, { cols: r.cols, rows: [r] });
    }
    return [...groups.values()];
  }

  statements(messages: Message[]): Statement[] {
    const d = this.db.dialect;
    const out: Statement[] = [];
    for (const { cols, rows: group } of this.groups(messages)) {
      const names = cols.map((c) => c.name);
      const keyNames = this.key?.map((k) => k.name);
      const update = keyNames ? names.filter((n) => !keyNames.includes(n)) : undefined;
      for (const part of chunkByParams(group, cols.length, d.maxParams)) {
        const params: unknown[] = [];
        const tuples = part.map((row) => {
          let t = '(';
          for (let k = 0; k < cols.length; k++) {
            params.push(row.values[k]);
            t += (k ? ',' : '') + d.castParam(d.param(params.length), cols[k]!);
          }
          return t + ')';
        });
        out.push({ sql: d.insertRows(d.table(this.o.table), names, tuples, keyNames, update), params });
      }
    }
    return out;
  }

  /** Dry run: how each source column lands (column, cast, and what may be lost), from the source's types. */
  mapping(source: TypedColumn[], targetKind: string): PlanItem[] {
    return source.map((c) => {
      const t = this.columnFor(c.name);
      if (!t) return { label: `  ${c.name}`, value: this.extra ? `→ ${this.extra.name} (extra fields object)` : '→ dropped (no such column)' };
      const cast = this.db.dialect.castParam('$n', t) === '$n' ? t.dbType : `::${this.db.dialect.castParam('$n', t).split('::')[1]}`;
      const loss = lossOf(c, { ...t, kind: targetKind });
      return { label: `  ${c.name} ${c.dbType}`, value: `→ ${t.name} ${t.dbType}${cast !== t.dbType ? ` (cast ${cast})` : ''}${loss ? `  LOSSY: ${loss}` : ''}` };
    });
  }

  plan(): PlanItem[] {
    const map = this.o.info.columns.map((c) => `${c.name} ${c.dbType}${c === this.extra ? ' (extra fields as one JSON object)' : ''}`).join(', ');
    const items: PlanItem[] = [{ label: 'columns', value: `payload fields → columns of the same name, converted to each type: ${map}` }];
    if (this.key) items.push({ label: 'key', value: `${this.key.map((k) => k.name).join(', ')}: rows with an existing key are updated; the last of duplicates in a batch wins` });
    if (!this.extra) items.push({ label: 'unmatched fields', value: 'dropped (one warning per field name, counted in the summary)' });
    return items;
  }
}
