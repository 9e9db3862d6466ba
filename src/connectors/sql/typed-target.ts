import type { DescribedTable } from '../../core/route.js';
import type { Database } from './database.js';
import type { ColumnInfo, TableInfo } from './types.js';
import type { SourceColumn } from './values/bind.js';
import { typedTable } from './write/create-typed.js';

type Profile = Record<string, number | string> | undefined;

/** A source table as sinks see it: its columns with what converting their values takes (SqlSource.describeTable). */
export function describedOf(info: TableInfo, kind: string, db: Database, profiles?: Profile[]): DescribedTable {
  const columns = info.columns.map((c, i) => {
    const detail: SourceColumn & { profile?: Profile } = { col: c, type: c.type, loose: db.driver.loose, kind, binder: db.dialect.binder };
    if (profiles?.[i]) detail.profile = profiles[i];
    return { name: c.name, type: c.type, dbType: c.dbType, kind, nullable: c.nullable, detail };
  });
  return { columns, primaryKey: info.primaryKey, unique: info.uniqueSets, detail: info };
}

/**
 * The columns a migration creates `target` with from a table of `source` (typed creation, keys
 * after the load): what a dry run plans the table's defaults and numbering against before the
 * table exists, so it names what the run will add and what it cannot keep. Undefined when typed
 * creation refuses the table: the route reports that itself.
 */
export function typedColumns(target: Database, table: string, info: TableInfo, source: Database, kind: string): ColumnInfo[] | undefined {
  try {
    return typedTable(target.dialect, table, describedOf(info, kind, source), kind, true).info.columns;
  } catch {
    return undefined;
  }
}
