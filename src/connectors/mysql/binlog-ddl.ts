/** An identifier as DDL writes it: `name` (backticks doubled inside) or a bare word. */
const IDENT = '(?:`((?:[^`]|``)+)`|([\\w$]+))';
const ALTER = new RegExp(`^ALTER\\s+(?:ONLINE\\s+|IGNORE\\s+)*TABLE\\s+(?:${IDENT}\\.)?${IDENT}\\s+([\\s\\S]*)$`, 'i');
const RENAME = new RegExp(`(?:RENAME\\s+COLUMN\\s+${IDENT}\\s+TO\\s+${IDENT}|CHANGE\\s+(?:COLUMN\\s+)?(?:IF\\s+EXISTS\\s+)?${IDENT}\\s+${IDENT})`, 'gi');

const unquote = (quoted: string | undefined, bare: string | undefined): string | undefined => quoted?.replace(/``/g, '`') ?? bare;

/**
 * The column renames an ALTER TABLE statement of the binlog makes (RENAME COLUMN a TO b, CHANGE a b
 * …): the stream's column lists cannot tell a rename from a drop and an add (MariaDB and MySQL add
 * a column anywhere), the statement can. Undefined for any other statement.
 */
export function renamesOf(statement: string, defaultSchema: string | undefined): { schema: string | undefined; table: string; renames: [string, string][] } | undefined {
  const m = ALTER.exec(statement.trim());
  if (!m) return undefined;
  const schema = unquote(m[1], m[2]) ?? defaultSchema;
  const table = unquote(m[3], m[4])!;
  const renames: [string, string][] = [];
  for (const r of m[5]!.matchAll(RENAME)) {
    const from = unquote(r[1], r[2]) ?? unquote(r[5], r[6]);
    const to = unquote(r[3], r[4]) ?? unquote(r[7], r[8]);
    if (from !== undefined && to !== undefined && from !== to) renames.push([from, to]);
  }
  return { schema, table, renames };
}
