import { inUtc, ownIndex, portableDefault, refAction, type ExtrasPlan, type SchemaExtras, type TableExtras, type TargetName } from '../sql/schema/extras.js';
import { splitTableName } from '../sql/identifiers.js';
import type { SqlConnection } from '../sql/types.js';
import { SqliteDialect } from './dialect.js';

const dialect = new SqliteDialect();
const q = (ident: string): string => dialect.quote(ident);
/** `schema.name` → the schema's prefix for PRAGMA and sqlite_master (`"aux".`), and the name. */
const parts = (table: string): [string, string] => {
  const p = splitTableName(table, 1024);
  return p.length > 1 ? [`${q(p[0]!)}.`, p[1]!] : ['', p[0]!];
};
const IDENT = String.raw`(?:"(?:[^"]|"")*"|\[[^\]]*\]|\x60(?:[^\x60]|\x60\x60)*\x60|[^\s(]+)`;
const INDEX_HEAD = new RegExp(String.raw`^\s*CREATE\s+(UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?${IDENT}(?:\.${IDENT})?\s+ON\s+${IDENT}\s*\(`, 'i');

/**
 * SQLite's side of the migration's last step. SQLite adds indexes to a table after the fact but no
 * foreign key, check or default (only CREATE TABLE holds them): as a target it keeps the indexes and
 * says what it cannot.
 */
export const sqliteSchemaExtras: SchemaExtras = {
  keysAfterLoad: false,
  async read(conn: SqlConnection, table: string): Promise<TableExtras> {
    const [pre, name] = parts(table);
    const x: TableExtras = { kind: 'sqlite', indexes: [], foreignKeys: [], checks: [], defaults: [], identity: [], unread: [] };
    const list = await conn.query(`PRAGMA ${pre}index_list(${q(name)})`);
    for (const [, iname, unique, origin, partial] of list.rows) {
      if (origin !== 'c') continue; // 'pk' and 'u': the keys of CREATE TABLE (typed creation makes those)
      const info = (await conn.query(`PRAGMA ${pre}index_xinfo(${q(String(iname))})`)).rows.filter((r) => Number(r[5]) === 1);
      const plain = Number(partial) === 0 && info.every((r) => Number(r[1]) >= 0);
      if (Number(unique) === 1 && plain) continue; // a plain unique index: typed creation makes it a UNIQUE key
      const sql = String((await conn.query(`SELECT sql FROM ${pre}sqlite_master WHERE type = 'index' AND name = ?`, [iname])).rows[0]?.[0] ?? '');
      const head = INDEX_HEAD.exec(sql);
      x.indexes.push({
        name: String(iname),
        unique: Number(unique) === 1,
        ...(head ? { own: `CREATE ${head[1] ? 'UNIQUE ' : ''}INDEX {name} ON {table} (${sql.slice(head[0].length)}` } : {}),
        ...(plain ? { columns: info.map((r) => String(r[2])), descending: info.map((r) => Number(r[3]) === 1) } : {}),
      });
    }
    const fks = await conn.query(`PRAGMA ${pre}foreign_key_list(${q(name)})`);
    for (const [id, , ref, from, to, upd, del] of fks.rows) {
      let f = x.foreignKeys.find((k) => k.name === `#${String(id)}`);
      if (!f) x.foreignKeys.push((f = { name: `#${String(id)}`, refTable: String(ref), columns: [], refColumns: [], onUpdate: refAction(upd), onDelete: refAction(del) }));
      f.columns.push(String(from));
      if (to !== null) f.refColumns.push(String(to));
    }
    for (const f of x.foreignKeys) {
      // SQLite's foreign keys have no names: PostgreSQL's way of naming them; REFERENCES t alone means t's primary key.
      f.name = `${name}_${f.columns.join('_')}_fkey`.slice(0, 63);
      if (f.refColumns.length === 0) f.refColumns = (await conn.query(`PRAGMA ${pre}table_info(${q(f.refTable)})`)).rows.filter((r) => Number(r[5]) > 0).sort((a, b) => Number(a[5]) - Number(b[5])).map((r) => String(r[1]));
    }
    const ddl = String((await conn.query(`SELECT sql FROM ${pre}sqlite_master WHERE type = 'table' AND name = ?`, [name])).rows[0]?.[0] ?? '');
    if (/\bCHECK\s*\(/i.test(ddl.replace(/CHECK\s*\(\s*json_valid\([^)]*\)\s*\)/gi, ''))) x.unread.push('checks: SQLite keeps them only in the CREATE TABLE text (not read)');
    const cols = (await conn.query(`PRAGMA ${pre}table_xinfo(${q(name)})`)).rows;
    for (const [, col, , , def, , hidden] of cols) {
      if (def === null || Number(hidden) >= 2) continue;
      // SQLite's CURRENT_TIMESTAMP, CURRENT_DATE and datetime('now') are UTC ('localtime' is not portable).
      const p = inUtc(portableDefault(String(def)), true);
      x.defaults.push({ column: String(col), expr: String(def), ...(p ? { portable: p } : {}) });
    }
    // A lone INTEGER PRIMARY KEY is the rowid: an insert without it gets the next number.
    const pk = cols.filter((r) => Number(r[5]) > 0);
    if (pk.length === 1 && String(pk[0]![2]).toUpperCase() === 'INTEGER' && !/WITHOUT\s+ROWID\s*[,;]?\s*(STRICT)?\s*$/i.test(ddl)) x.identity.push(String(pk[0]![1]));
    return x;
  },

  async plan(_conn: SqlConnection, table: string, want: TableExtras, have: TableExtras, target: TargetName): Promise<ExtrasPlan> {
    const [pre, name] = parts(table);
    const same = want.kind === 'sqlite';
    const p: ExtrasPlan = { columns: [], keys: [], indexes: [], constraints: [], notKept: [...want.unread], names: [] };
    const haveNames = new Set(have.indexes.map((i) => i.name));
    for (const i of want.indexes) {
      // Index names are the database's: a kind whose are the table's gets the table's name in front.
      const iname = want.indexNamesPerTable ? `${name}_${i.name}` : i.name;
      p.names.push(iname);
      if (haveNames.has(iname)) continue;
      // SQLite's CREATE INDEX takes its schema on the index's name, the table bare.
      if (same && i.own) p.indexes.push(ownIndex(i.own, `${pre}${q(iname)}`, q(name)));
      else if (!i.columns || i.method) p.notKept.push(`index ${i.name}: ${i.method ? `a ${i.method} index` : 'an expression or partial index'} of ${want.kind} (not translated)`);
      else p.indexes.push(`CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${pre}${q(iname)} ON ${q(name)} (${i.columns.map((c, k) => `${q(c)}${i.descending?.[k] ? ' DESC' : ''}`).join(', ')})`);
    }
    for (const f of want.foreignKeys) if (target(f.refTable) !== undefined && !have.foreignKeys.length) p.notKept.push(`foreign key ${f.name}: SQLite adds no foreign key to a table after CREATE TABLE`);
    for (const c of want.checks) p.notKept.push(`check ${c.name}: SQLite adds no check to a table after CREATE TABLE`);
    const hasDefault = new Set(have.defaults.map((d) => d.column));
    for (const d of want.defaults) if (!hasDefault.has(d.column)) p.notKept.push(`default of ${d.column}: SQLite sets no default after CREATE TABLE`);
    for (const c of want.identity) if (!have.identity.includes(c)) p.notKept.push(`numbering of ${c}: only a lone INTEGER PRIMARY KEY numbers itself in SQLite`);
    return p;
  },
};
