import { MISSING_TABLE, withUniques, type ColumnInfo, type SqlConnection, type TableInfo } from '../sql/types.js';
import { mysqlAttributes, mysqlType } from './types.js';

/**
 * A MySQL/MariaDB table as information_schema describes it: columns (with JSON columns found by
 * their json_valid() check on MariaDB, and generated columns by EXTRA), primary key and unique sets.
 * `schema` null: the connection's database.
 */
export async function introspectTable(conn: SqlConnection, schema: string | null, name: string): Promise<TableInfo> {
  const cols = await conn.query(
    `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, NUMERIC_SCALE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, DATETIME_PRECISION, EXTRA, GENERATION_EXPRESSION
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
    [schema, name],
  );
  if (cols.rows.length === 0) return MISSING_TABLE;
  // MariaDB's JSON is LONGTEXT with a json_valid() check: find those columns to embed them as JSON.
  const jsonCols = new Set<string>();
  try {
    const checks = await conn.query(
      `SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?`,
      [schema, name],
    );
    for (const [clause] of checks.rows) {
      const m = /^json_valid\(`(.+)`\)$/i.exec(String(clause));
      if (m) jsonCols.add(m[1]!.replace(/``/g, '`'));
    }
  } catch {
    /* MySQL's CHECK_CONSTRAINTS has no TABLE_NAME; its JSON columns are typed anyway */
  }
  const columns: ColumnInfo[] = cols.rows.map(([n, dt, ct, nullable, scale, chars, prec, frac, extra, expr]) => {
    const json = jsonCols.has(String(n));
    const dataType = String(dt).toLowerCase();
    // EXTRA is 'STORED GENERATED' or 'VIRTUAL GENERATED' (MariaDB also says 'PERSISTENT' for stored).
    const generated = /GENERATED/i.test(String(extra ?? '')) ? { expr: String(expr), stored: !/VIRTUAL/i.test(String(extra)) } : undefined;
    return {
      name: String(n),
      type: json ? 'json' : mysqlType(dataType, String(ct).toLowerCase()),
      dbType: String(ct),
      nullable: nullable === 'YES',
      ...(scale === null || scale === undefined ? {} : { scale: Number(scale) }),
      ...(json ? {} : mysqlAttributes(dataType, String(ct).toLowerCase(), chars, prec, scale, frac)),
      ...(generated ? { generated } : {}),
    };
  });
  const idx = await conn.query(
    `SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
    [schema, name],
  );
  const sets = new Map<string, string[]>();
  for (const [index, col] of idx.rows) sets.set(String(index), [...(sets.get(String(index)) ?? []), String(col)]);
  return withUniques({ exists: true, columns, primaryKey: sets.get('PRIMARY') ?? [], uniqueSets: [...sets.values()] });
}
