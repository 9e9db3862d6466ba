import { inUtc, ownIndex, foreignKeysToAdd, portableDefault, refAction, translateCheck, renderDefault, type ExtrasPlan, type PortableDefault, type SchemaExtras, type TableExtras, type TargetName } from '../sql/schema/extras.js';
import { splitTableName } from '../sql/identifiers.js';
import type { ColumnInfo, SqlConnection } from '../sql/types.js';
import { MysqlDialect } from './dialect.js';

const dialect = new MysqlDialect('mariadb');
const q = (ident: string): string => dialect.quote(ident);
const qt = (table: string): string => dialect.table(table);
/** `schema.name` → [schema or null (the connection's database), name]. */
const parts = (table: string): [string | null, string] => {
  const p = splitTableName(table, 64);
  return p.length > 1 ? [p[0]!, p[1]!] : [null, p[0]!];
};
const FAMILY = new Set(['mysql', 'mariadb']);
const NUMERIC = /^(tinyint|smallint|mediumint|int|bigint|decimal|float|double|bit|year)$/;

/** MariaDB's and MySQL's side of the migration's last step (information_schema), `kind` as the dialect names it. */
export function mysqlSchemaExtras(kind: 'mysql' | 'mariadb'): SchemaExtras {
  return {
    keysAfterLoad: false,
    async read(conn: SqlConnection, table: string): Promise<TableExtras> {
      const [schema, name] = parts(table);
      const x: TableExtras = { kind, indexes: [], foreignKeys: [], checks: [], defaults: [], identity: [], unread: [], indexNamesPerTable: true };
      // Unique indexes are typed creation's; the secondary ones are read here.
      const idx = await conn.query(
        `SELECT INDEX_NAME, COLUMN_NAME, SUB_PART, COLLATION, INDEX_TYPE FROM information_schema.STATISTICS
          WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND NON_UNIQUE = 1 ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
        [schema, name],
      );
      const byName = new Map<string, unknown[][]>();
      for (const r of idx.rows) byName.set(String(r[0]), [...(byName.get(String(r[0])) ?? []), r]);
      const fkNames = new Set((await conn.query(`SELECT CONSTRAINT_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?`, [schema, name])).rows.map((r) => String(r[0])));
      for (const [iname, cols] of byName) {
        // InnoDB makes an index for a foreign key that has none, named after it: the key brings it back.
        if (fkNames.has(iname)) continue;
        const type = String(cols[0]![4]);
        const method = type === 'FULLTEXT' || type === 'SPATIAL' ? type : undefined;
        const expr = cols.some((c) => c[1] === null);
        // A SPATIAL index's SUB_PART (32) is not a prefix CREATE INDEX takes.
        const list = cols.map((c) => `${q(String(c[1]))}${c[2] !== null && !method ? `(${String(c[2])})` : ''}${c[3] === 'D' ? ' DESC' : ''}`).join(', ');
        x.indexes.push({
          name: iname,
          unique: false,
          ...(expr ? {} : { own: `CREATE ${method ? `${method} ` : ''}INDEX {name} ON {table} (${list})`, columns: cols.map((c) => String(c[1])), descending: cols.map((c) => c[3] === 'D') }),
          ...(method ? { method } : {}),
        });
      }
      const fks = await conn.query(
        `SELECT rc.CONSTRAINT_NAME, rc.REFERENCED_TABLE_NAME, rc.UPDATE_RULE, rc.DELETE_RULE, k.COLUMN_NAME, k.REFERENCED_COLUMN_NAME
           FROM information_schema.REFERENTIAL_CONSTRAINTS rc JOIN information_schema.KEY_COLUMN_USAGE k
             ON k.CONSTRAINT_SCHEMA = rc.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = rc.CONSTRAINT_NAME AND k.TABLE_NAME = rc.TABLE_NAME
          WHERE rc.CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND rc.TABLE_NAME = ? ORDER BY rc.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
        [schema, name],
      );
      for (const [cname, ref, upd, del, col, refCol] of fks.rows) {
        let f = x.foreignKeys.find((k) => k.name === cname);
        if (!f) x.foreignKeys.push((f = { name: String(cname), refTable: String(ref), columns: [], refColumns: [], onUpdate: refAction(upd), onDelete: refAction(del) }));
        f.columns.push(String(col));
        f.refColumns.push(String(refCol));
      }
      x.checks = await readChecks(conn, schema, name);
      // Typed creation makes text case- and accent-sensitive (utf8mb4_bin, PostgreSQL and SQLite text): a collation that is not is named.
      const coll = await conn.query(
        `SELECT COLLATION_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION SEPARATOR ', ') FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND COLLATION_NAME IS NOT NULL AND COLLATION_NAME NOT LIKE '%\\_bin' GROUP BY COLLATION_NAME ORDER BY COLLATION_NAME`,
        [schema, name],
      );
      x.lost = coll.rows.map(([c, list]) => `collation ${String(c)} of ${String(list)}: compared case- and accent-sensitively here, in unique keys too`);
      x.unread.push(...x.lost);
      const cols = await conn.query(
        `SELECT COLUMN_NAME, COLUMN_DEFAULT, EXTRA, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
        [schema, name],
      );
      for (const [col, def, extra, dataType] of cols.rows) {
        const e = String(extra ?? '');
        if (/auto_increment/i.test(e)) x.identity.push(String(col));
        if (/GENERATED/i.test(e) && !/DEFAULT_GENERATED/i.test(e)) continue;
        const onUpdate = /on update (.+)$/i.exec(e)?.[1];
        if (onUpdate) {
          x.unread.push(`${String(col)}: ${e.replace(/DEFAULT_GENERATED\s*/i, '')} (kept only by MariaDB/MySQL)`);
          (x.onUpdate ??= {})[String(col)] = onUpdate;
        }
        if (def === null || def === undefined || /^null$/i.test(String(def))) continue;
        // MariaDB quotes literal strings in COLUMN_DEFAULT; MySQL gives them bare (expressions are marked DEFAULT_GENERATED).
        const text = kind === 'mysql' && !/DEFAULT_GENERATED/i.test(e) && !NUMERIC.test(String(dataType)) ? `'${String(def).replace(/'/g, "''")}'` : String(def);
        // A TIMESTAMP is an instant (read in UTC): its current time goes into a zone-less target as UTC.
        const p = /^'0000-00-00/.test(text) ? undefined : inUtc(portableDefault(text), String(dataType).toLowerCase() === 'timestamp');
        x.defaults.push({ column: String(col), expr: text, ...(p ? { portable: p } : {}) });
      }
      return x;
    },

    async plan(conn: SqlConnection, table: string, want: TableExtras, have: TableExtras, target: TargetName, created?: ColumnInfo[]): Promise<ExtrasPlan> {
      const [schema, name] = parts(table);
      const t = qt(table);
      const same = FAMILY.has(want.kind);
      const rows = created
        ? created.map((c) => [c.name, c.dbType, /^[a-z]+\d*/.exec(c.dbType.toLowerCase())?.[0] ?? '', c.nullable ? 'YES' : 'NO'])
        : (await conn.query(`SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?`, [schema, name])).rows;
      const types = new Map(rows.map(([n, ct, dt, nl]) => [String(n), { type: String(ct), data: String(dt), nullable: nl === 'YES' }]));
      const p: ExtrasPlan = { columns: [], keys: [], indexes: [], constraints: [], notKept: same ? [...(want.lost ?? [])] : [...want.unread], names: [] };
      const haveNames = new Set([...have.indexes.map((i) => i.name), ...have.foreignKeys.map((f) => f.name), ...have.checks.map((c) => c.name)]);
      const fresh = (n: string): boolean => (p.names.push(n), !haveNames.has(n));
      for (const i of want.indexes) {
        const iname = i.name.slice(0, 64);
        if (same && i.own) {
          if (fresh(iname)) p.indexes.push(ownIndex(i.own, q(iname), t));
          continue;
        }
        if (!i.columns || i.method) {
          p.notKept.push(`index ${i.name}: ${i.method ? `a ${i.method} index` : 'an expression or partial index'} of ${want.kind} (not translated)`);
          continue;
        }
        // A TEXT or BLOB column is indexed by a prefix (InnoDB's key limit); a unique index on a prefix would mean something else.
        const long = i.columns.filter((c) => /text|blob/.test(types.get(c)?.data ?? ''));
        if (i.unique && long.length) p.notKept.push(`index ${i.name}: unique on ${long.join(', ')}, which ${kind} indexes only by a prefix`);
        else if (fresh(iname)) p.indexes.push(`CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${q(iname)} ON ${t} (${i.columns.map((c, k) => `${q(c)}${long.includes(c) ? '(255)' : ''}${i.descending?.[k] ? ' DESC' : ''}`).join(', ')})`);
      }
      for (const { f, ref } of foreignKeysToAdd(want, target, p.notKept, fresh)) {
        // InnoDB checks every foreign key at once and as MATCH SIMPLE.
        if (f.deferrable) p.notKept.push(`foreign key ${f.name}: DEFERRABLE INITIALLY ${f.deferrable.toUpperCase()} (checked at once here)`);
        if (f.matchFull) p.notKept.push(`foreign key ${f.name}: MATCH FULL (a key with some columns NULL is not checked here)`);
        const on = f.columns.map((c, k) => `r.${q(f.refColumns[k]!)} = t.${q(c)}`).join(' AND ');
        // Added without the check (no table copy), then the rows are checked by one anti-join: PostgreSQL's NOT VALID + VALIDATE.
        p.constraints.push({
          name: f.name,
          add: ['SET SESSION foreign_key_checks = 0', `ALTER TABLE ${t} ADD CONSTRAINT ${q(f.name)} FOREIGN KEY (${f.columns.map(q).join(', ')}) REFERENCES ${qt(ref)} (${f.refColumns.map(q).join(', ')}) ON UPDATE ${f.onUpdate} ON DELETE ${f.onDelete}`],
          after: ['SET SESSION foreign_key_checks = 1'],
          orphans: `SELECT 1 FROM ${t} t LEFT JOIN ${qt(ref)} r ON ${on} WHERE ${f.columns.map((c) => `t.${q(c)} IS NOT NULL`).join(' AND ')} AND r.${q(f.refColumns[0]!)} IS NULL LIMIT 1`,
          drop: `ALTER TABLE ${t} DROP FOREIGN KEY ${q(f.name)}`,
        });
      }
      for (const c of want.checks) {
        const expr = same ? c.expr : translateCheck(c.expr, q);
        if (expr === undefined) p.notKept.push(`check ${c.name}: ${c.expr} (${want.kind} SQL, not translated)`);
        else if (fresh(c.name)) p.constraints.push({ name: c.name, add: [`ALTER TABLE ${t} ADD CONSTRAINT ${q(c.name)} CHECK (${expr})`] });
      }
      const hasDefault = new Set([...have.defaults.map((d) => d.column), ...have.identity]);
      // ON UPDATE goes on with the column's whole definition (MODIFY), its default with it.
      const onUpdate = same ? Object.entries(want.onUpdate ?? {}).filter(([c]) => types.has(c) && !hasDefault.has(c) && !have.onUpdate?.[c]) : [];
      for (const [c, expr] of onUpdate) {
        const col = types.get(c)!;
        const d = want.defaults.find((x) => x.column === c);
        p.columns.push(`ALTER TABLE ${t} MODIFY ${q(c)} ${col.type}${col.nullable ? ' NULL' : ' NOT NULL'}${d ? ` DEFAULT ${d.expr}` : ''} ON UPDATE ${expr}`);
        hasDefault.add(c);
      }
      for (const d of want.defaults) {
        const col = types.get(d.column);
        if (hasDefault.has(d.column) || !col) continue;
        // The current time into a column that is not a time here would be kept in another format than the source's.
        const timeless = d.portable && 'now' in d.portable && !/^(date|datetime|timestamp)$/.test(col.data);
        const value = same ? d.expr : d.portable && !timeless ? renderMy(d.portable, col.data, col.type) : undefined;
        if (value === undefined) p.notKept.push(`default of ${d.column}: ${d.expr} (${want.kind} SQL, not translated)`);
        else p.columns.push(`ALTER TABLE ${t} ALTER COLUMN ${q(d.column)} SET DEFAULT ${value}`);
      }
      // One AUTO_INCREMENT column per table, leading a key (the next number is found through it):
      // a source numbering several columns keeps the one leading its primary key, else the first.
      const keys = [...(have.keys ? [have.keys.primaryKey, ...have.keys.unique] : []), ...(want.keys ? [want.keys.primaryKey, ...want.keys.unique] : [])];
      const leadsPk = (c: string): number => (want.keys?.primaryKey[0] === c ? 0 : 1);
      let numbered = have.identity[0];
      for (const c of [...want.identity].sort((a, b) => leadsPk(a) - leadsPk(b))) {
        const col = types.get(c);
        if (hasDefault.has(c) || !col) continue;
        if (!/int$/.test(col.data)) p.notKept.push(`numbering of ${c}: the column is ${col.type} here (AUTO_INCREMENT needs an integer type)`);
        else if (numbered !== undefined) p.notKept.push(`numbering of ${c}: AUTO_INCREMENT numbers one column of a table (${numbered} here)`);
        else if (!keys.some((k) => k[0] === c)) p.notKept.push(`numbering of ${c}: AUTO_INCREMENT numbers only a column that leads a key`);
        else {
          numbered = c;
          // AUTO_INCREMENT goes on after the rows' highest value by itself (a table copy: the one way MariaDB adds it).
          p.columns.push(`ALTER TABLE ${t} MODIFY ${q(c)} ${col.type} NOT NULL AUTO_INCREMENT`);
        }
      }
      return p;
    },
  };
}

/** The checks of a table: MariaDB's CHECK_CONSTRAINTS has TABLE_NAME, MySQL's is reached through TABLE_CONSTRAINTS. */
async function readChecks(conn: SqlConnection, schema: string | null, name: string): Promise<TableExtras['checks']> {
  let rows: unknown[][];
  try {
    rows = (await conn.query(`SELECT CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY CONSTRAINT_NAME`, [schema, name])).rows;
  } catch {
    rows = (
      await conn.query(
        `SELECT tc.CONSTRAINT_NAME, cc.CHECK_CLAUSE FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.CHECK_CONSTRAINTS cc ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
          WHERE tc.TABLE_SCHEMA = COALESCE(?, DATABASE()) AND tc.TABLE_NAME = ? AND tc.CONSTRAINT_TYPE = 'CHECK' ORDER BY tc.CONSTRAINT_NAME`,
        [schema, name],
      )
    ).rows;
  }
  // MariaDB's JSON type is a json_valid() check named after its column: part of the column's type, not a check of the user's.
  return rows.filter(([n, clause]) => String(clause) !== `json_valid(${q(String(n))})`).map(([n, clause]) => ({ name: String(n), expr: String(clause) }));
}

/**
 * The current time with the column's fractional digits (current_timestamp() has none: PostgreSQL's
 * now() gave microseconds), in UTC where the source's is and the column is a zone-less DATETIME:
 * current_timestamp() is the session's local time, hours off the copied rows on a server not in UTC.
 */
function renderMy(d: PortableDefault, data: string, type: string): string {
  if ('now' in d) {
    const utc = d.utc === true && data !== 'timestamp';
    if (d.now === 'date' || data === 'date') return utc ? '(utc_date())' : '(curdate())';
    const digits = /\((\d)\)/.exec(type)?.[1] ?? '';
    return utc ? `(utc_timestamp(${digits}))` : `current_timestamp(${digits})`;
  }
  return renderDefault(d, { timestamp: 'current_timestamp()', date: '(curdate())' }, (b) => (b ? '1' : '0'));
}
