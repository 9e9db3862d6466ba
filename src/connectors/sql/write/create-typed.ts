import { configError } from '../../../core/errors.js';
import type { DescribedTable, PlanItem } from '../../../core/route.js';
import type { SourceColumn } from '../values/bind.js';
import type { Dialect } from '../dialect.js';
import { withUniques, type ColumnInfo, type TableInfo } from '../types.js';

/** The statements that create a typed copy of a source table, the table they create, and what the plan says of it. */
export interface TypedTable {
  ddl: string[];
  info: TableInfo;
  plan: PlanItem[];
}

/**
 * columns=auto with auto_create_table: one column per source column, typed by the sink kind's
 * mapping (`Dialect.columnType`, the one the round-trip suite checks), with NOT NULL, the primary
 * key and the unique column sets of the source; from a table of the same kind, its table options
 * too (SQLite STRICT: without it an ANY column converts '42' to 42) and its generated columns.
 */
export function typedTable(d: Dialect, table: string, src: DescribedTable | undefined, sourceKind: string, keysLater = false): TypedTable {
  if (!src || src.columns.some((c) => c.detail === undefined))
    throw configError(`auto_create_table with columns=auto creates the table from a database source's columns; with a ${sourceKind} source, create ${table} yourself (or drop columns=auto for the queue shape)`);
  // Table options and generated columns' expressions mean the same only to a database of the same kind.
  const sameKind = src.columns.every((c) => (c.detail as SourceColumn).kind === d.kind);
  const options = sameKind ? ((src.detail as TableInfo | undefined)?.options ?? []) : [];
  const defs: string[] = [];
  const plain: string[] = [];
  const types = fitKeys(d, table, src);
  const columns = src.columns.map((c, i) => {
    const s = c.detail as SourceColumn;
    const type = types[i]!;
    const gen = s.col.generated;
    const clause = gen?.expr !== undefined && sameKind ? d.generatedColumn?.(gen.expr, gen.stored) : undefined;
    if (gen && !clause) plain.push(c.name);
    // A generated column takes no NOT NULL on MariaDB; its expression decides anyway.
    defs.push(`${d.quote(c.name)}${type ? ` ${type}` : ''}${clause ? ` ${clause}` : c.nullable ? '' : ' NOT NULL'}`);
    const col: ColumnInfo = { ...d.describeType(c.name, type, options), nullable: c.nullable };
    if (clause) col.generated = gen;
    return col;
  });
  const list = (cols: string[]): string => cols.map((x) => d.quote(x)).join(', ');
  const same = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  const unique = src.unique.filter((u) => !same(u, src.primaryKey));
  if (src.primaryKey.length && !keysLater) defs.push(`PRIMARY KEY (${list(src.primaryKey)})`);
  if (!keysLater) for (const u of unique) defs.push(`UNIQUE (${list(u)})`);
  const uniqueSets = src.primaryKey.length ? [src.primaryKey, ...unique] : unique;
  const plan = plain.length ? [{ label: 'generated in the source', value: `${plain.join(', ')}: created as plain columns holding the copied values (${d.kind} cannot compute them from the source's expression)` }] : [];
  if (keysLater && (src.primaryKey.length || unique.length)) plan.push({ label: 'keys', value: 'the primary key and unique keys are added after the load, with the indexes' });
  return { ddl: d.createTable(table, defs, options), info: withUniques({ exists: true, columns, primaryKey: src.primaryKey, uniqueSets }), plan };
}

/** Each source column's type on `d`, key columns resized (one key after another) to fit the kind's key size limit. */
export function fitKeys(d: Dialect, table: string, src: DescribedTable): string[] {
  const keyed = new Set([...src.primaryKey, ...src.unique.flat()]);
  const sameKind = src.columns.every((c) => (c.detail as SourceColumn).kind === d.kind);
  const types = src.columns.map((c) => {
    const s = c.detail as SourceColumn;
    const own = sameKind ? d.sameKindType(s.col, s.binder.holds.untyped, keyed.has(c.name)) : undefined;
    return own ?? d.columnType(c.name, s.col, s.binder.holds.untyped, keyed.has(c.name));
  });
  for (const key of [src.primaryKey, ...src.unique].filter((k) => k.length)) {
    const at = key.map((name) => src.columns.findIndex((c) => c.name === name));
    if (at.some((i) => i < 0)) continue;
    const cols = at.map((i) => ({ name: src.columns[i]!.name, type: types[i]!, src: (src.columns[i]!.detail as SourceColumn).col, untyped: (src.columns[i]!.detail as SourceColumn).binder.holds.untyped }));
    d.fitKey?.(table, cols).forEach((t, j) => (types[at[j]!] = t));
  }
  return types;
}
