import { configError } from '../../core/errors.js';
import type { DescribedTable } from '../../core/route.js';
import type { SourceColumn } from './bind.js';
import type { Dialect } from './dialect.js';
import { withUniques, type TableInfo } from './types.js';

/** The statements that create a typed copy of a source table, and the table they create. */
export interface TypedTable {
  ddl: string[];
  info: TableInfo;
}

/**
 * columns=auto with auto_create_table: one column per source column, typed by the sink kind's
 * mapping (`Dialect.columnType`, the one the round-trip suite checks), with NOT NULL, the primary
 * key and the unique column sets of the source; from a table of the same kind, its table options
 * too (SQLite STRICT: without it an ANY column converts '42' to 42).
 */
export function typedTable(d: Dialect, table: string, src: DescribedTable | undefined, sourceKind: string): TypedTable {
  if (!src || src.columns.some((c) => c.detail === undefined))
    throw configError(`auto_create_table with columns=auto creates the table from a database source's columns; with a ${sourceKind} source, create ${table} yourself (or drop columns=auto for the queue shape)`);
  const keyed = new Set([...src.primaryKey, ...src.unique.flat()]);
  // Table options (SQLite STRICT, WITHOUT ROWID) mean the same only to a database of the same kind.
  const sameKind = src.columns.every((c) => (c.detail as SourceColumn).kind === d.kind);
  const options = sameKind ? ((src.detail as TableInfo | undefined)?.options ?? []) : [];
  const defs: string[] = [];
  const columns = src.columns.map((c) => {
    const s = c.detail as SourceColumn;
    const type = d.columnType(c.name, s.col, s.binder.holds.untyped, keyed.has(c.name));
    defs.push(`${d.quote(c.name)}${type ? ` ${type}` : ''}${c.nullable ? '' : ' NOT NULL'}`);
    return { ...d.describeType(c.name, type, options), nullable: c.nullable };
  });
  const list = (cols: string[]): string => cols.map((x) => d.quote(x)).join(', ');
  if (src.primaryKey.length) defs.push(`PRIMARY KEY (${list(src.primaryKey)})`);
  const same = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  const unique = src.unique.filter((u) => !same(u, src.primaryKey));
  for (const u of unique) defs.push(`UNIQUE (${list(u)})`);
  const uniqueSets = src.primaryKey.length ? [src.primaryKey, ...unique] : unique;
  return { ddl: d.createTable(table, defs, options), info: withUniques({ exists: true, columns, primaryKey: src.primaryKey, uniqueSets }) };
}
