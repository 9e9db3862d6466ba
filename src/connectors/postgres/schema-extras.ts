import { inUtc, ownIndex, foreignKeysToAdd, portableDefault, refAction, translateCheck, renderDefault, type ExtrasPlan, type SchemaExtras, type TableExtras, type TargetName } from '../sql/schema/extras.js';
import { splitTableName } from '../sql/identifiers.js';
import type { ColumnInfo, SqlConnection } from '../sql/types.js';
import { PostgresDialect } from './dialect.js';
import { textLiteral } from './literal.js';

const dialect = new PostgresDialect();
const q = (ident: string): string => dialect.quote(ident);
const qt = (table: string): string => dialect.table(table);
const names = (json: unknown): string[] => (json === null || json === undefined ? [] : (JSON.parse(String(json)) as string[]));
const yes = (v: unknown): boolean => v === true || v === 't' || v === 'true';
/** Types whose literal defaults mean the same value in another kind (an array's '{}' or a bytea's '\\x00' would not). */
const PORTABLE_TYPES = /^(smallint|integer|bigint|numeric(\(.*\))?|real|double precision|text|character( varying)?(\(\d+\))?|boolean|date|timestamp(\(\d\))? with(out)? time zone|json|jsonb|uuid)$/;

/** PostgreSQL's side of the migration's last step: its catalog read portably, and the DDL that adds what a source had. */
/** What follows USING in pg_get_indexdef's text: the first one outside a quoted name ("idx USING x"). */
function afterUsing(def: string): string {
  let quoted = false;
  for (let i = 0; i < def.length; i++) {
    if (def[i] === '"') quoted = !quoted;
    else if (!quoted && def.startsWith(' USING ', i)) return def.slice(i + 7);
  }
  return def;
}

export const pgSchemaExtras: SchemaExtras = {
  keysAfterLoad: true,
  async read(conn: SqlConnection, table: string): Promise<TableExtras> {
    const reg = qt(table);
    const x: TableExtras = { kind: 'postgres', indexes: [], foreignKeys: [], checks: [], defaults: [], identity: [], unread: [] };
    // Not the primary key, nor what typed creation makes itself (a plain unique column list), nor a constraint's index.
    const idx = await conn.query(
      `SELECT c.relname, i.indisunique::text, am.amname, pg_get_indexdef(i.indexrelid),
              (i.indpred IS NULL AND i.indexprs IS NULL AND i.indnatts = i.indnkeyatts)::text,
              (SELECT json_agg(a.attname ORDER BY k.n) FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)::text,
              (SELECT json_agg((o & 1) = 1 ORDER BY n) FROM unnest(i.indoption::int2[]) WITH ORDINALITY x(o, n))::text
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
        WHERE i.indrelid = to_regclass($1) AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
          AND NOT (i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL)
        ORDER BY c.relname`,
      [reg],
    );
    for (const [name, unique, am, def, plain, cols, desc] of idx.rows) {
      const text = String(def);
      const own = `CREATE ${yes(unique) ? 'UNIQUE ' : ''}INDEX {name} ON {table} USING ${afterUsing(text)}`;
      const columns = names(cols);
      x.indexes.push({ name: String(name), unique: yes(unique), own, ...(am !== 'btree' ? { method: String(am) } : {}), ...(yes(plain) && columns.length ? { columns, descending: JSON.parse(String(desc)) as boolean[] } : {}) });
    }
    const fks = await conn.query(
      `SELECT k.conname, f.relname, k.confupdtype::text, k.confdeltype::text, k.condeferrable::text, k.condeferred::text, k.confmatchtype::text,
              (SELECT json_agg(a.attname ORDER BY n) FROM unnest(k.conkey) WITH ORDINALITY u(attnum, n) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum)::text,
              (SELECT json_agg(a.attname ORDER BY n) FROM unnest(k.confkey) WITH ORDINALITY u(attnum, n) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum)::text
         FROM pg_constraint k JOIN pg_class f ON f.oid = k.confrelid WHERE k.conrelid = to_regclass($1) AND k.contype = 'f' ORDER BY k.conname`,
      [reg],
    );
    for (const [name, ref, upd, del, deferrable, deferred, match, cols, refCols] of fks.rows)
      x.foreignKeys.push({
        name: String(name), refTable: String(ref), columns: names(cols), refColumns: names(refCols), onUpdate: refAction(upd), onDelete: refAction(del),
        ...(yes(deferrable) ? { deferrable: yes(deferred) ? 'deferred' : 'immediate' } : {}), ...(match === 'f' ? { matchFull: true } : {}),
      });
    await unreadOf(conn, reg, x.unread);
    const checks = await conn.query(`SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'c' ORDER BY conname`, [reg]);
    for (const [name, def] of checks.rows) x.checks.push({ name: String(name), expr: String(def).replace(/^CHECK /, '').replace(/ NOT VALID$/, '') });
    const defs = await conn.query(
      `SELECT a.attname, pg_get_expr(d.adbin, d.adrelid), a.attidentity::text, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' AND (d.adbin IS NOT NULL OR a.attidentity <> '') ORDER BY a.attnum`,
      [reg],
    );
    for (const [col, expr, ident, type] of defs.rows) {
      // serial is a default of nextval() on a sequence the column owns: a numbering column, like an identity.
      if (ident === 'a' || ident === 'd' || /^nextval\(/.test(String(expr))) x.identity.push(String(col));
      else {
        // now() into timestamptz is an instant: a zone-less target keeps it as UTC, as bridge writes its values.
        const p = PORTABLE_TYPES.test(String(type)) ? inUtc(portableDefault(String(expr)), /with time zone$/.test(String(type))) : undefined;
        x.defaults.push({ column: String(col), expr: String(expr), ...(p ? { portable: p } : {}) });
      }
    }
    return x;
  },

  async plan(conn: SqlConnection, table: string, want: TableExtras, have: TableExtras, target: TargetName, created?: ColumnInfo[]): Promise<ExtrasPlan> {
    const t = qt(table);
    const base = splitTableName(table, 63).pop()!;
    const same = want.kind === 'postgres';
    const cols = created
      ? created.map((c) => [c.name, c.dbType, !c.nullable])
      : (await conn.query(`SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`, [t])).rows;
    const types = new Map(cols.map(([n, ty]) => [String(n), String(ty)]));
    const nullable = new Set(cols.filter((r) => !yes(r[2])).map((r) => String(r[0])));
    const p: ExtrasPlan = { columns: [], keys: [], indexes: [], constraints: [], notKept: [...want.unread], names: [] };
    // Keys a migration created the table without (Dialect.keysAfterLoad): one index build each after the rows, not one insert per row.
    const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');
    if (want.keys && have.keys) {
      const list = (cols: string[]): string => cols.map(q).join(', ');
      if (want.keys.primaryKey.length && !have.keys.primaryKey.length) p.keys.push(`ALTER TABLE ${t} ADD PRIMARY KEY (${list(want.keys.primaryKey)})`);
      for (const u of want.keys.unique)
        if (!sameSet(u, want.keys.primaryKey) && !have.keys.unique.some((h) => sameSet(h, u))) p.keys.push(`ALTER TABLE ${t} ADD UNIQUE (${list(u)})`);
    }
    const haveNames = new Set([...have.indexes.map((i) => i.name), ...have.foreignKeys.map((f) => f.name), ...have.checks.map((c) => c.name)]);
    const fresh = (name: string): boolean => (p.names.push(name), !haveNames.has(name));
    for (const i of want.indexes) {
      const name = want.indexNamesPerTable ? `${base}_${i.name}`.slice(0, 63) : i.name;
      if (same && i.own) {
        if (fresh(name)) p.indexes.push(ownIndex(i.own, q(name), t));
      }
      else if (!i.columns || i.method) p.notKept.push(`index ${i.name}: ${i.method ? `a ${i.method} index` : 'an expression or partial index'} of ${want.kind} (not translated)`);
      else if (fresh(name)) p.indexes.push(`CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${q(name)} ON ${t} (${i.columns.map((c, k) => `${q(c)}${i.descending?.[k] ? ' DESC' : ''}`).join(', ')})`);
    }
    for (const { f, ref } of foreignKeysToAdd(want, target, p.notKept, fresh)) {
      const when = f.deferrable ? ` DEFERRABLE INITIALLY ${f.deferrable === 'deferred' ? 'DEFERRED' : 'IMMEDIATE'}` : '';
      const add = `ALTER TABLE ${t} ADD CONSTRAINT ${q(f.name)} FOREIGN KEY (${f.columns.map(q).join(', ')}) REFERENCES ${qt(ref)} (${f.refColumns.map(q).join(', ')})${f.matchFull ? ' MATCH FULL' : ''} ON UPDATE ${f.onUpdate} ON DELETE ${f.onDelete}${when} NOT VALID`;
      p.constraints.push({ name: f.name, add: [add], validate: `ALTER TABLE ${t} VALIDATE CONSTRAINT ${q(f.name)}` });
    }
    for (const c of want.checks) {
      const expr = same ? c.expr : translateCheck(c.expr, q);
      if (expr === undefined) p.notKept.push(`check ${c.name}: ${c.expr} (${want.kind} SQL, not translated)`);
      else if (fresh(c.name)) p.constraints.push({ name: c.name, add: [`ALTER TABLE ${t} ADD CONSTRAINT ${q(c.name)} CHECK (${expr}) NOT VALID`], validate: `ALTER TABLE ${t} VALIDATE CONSTRAINT ${q(c.name)}` });
    }
    const hasDefault = new Set([...have.defaults.map((d) => d.column), ...have.identity]);
    for (const d of want.defaults) {
      if (hasDefault.has(d.column) || !types.has(d.column)) continue;
      const bool = types.get(d.column) === 'boolean';
      // The current time into a column that is not a time here would be kept in another format than the source's.
      const timeless = d.portable && 'now' in d.portable && !/^(date|timestamp)/.test(types.get(d.column)!);
      const value = same ? sameKindDefault(d.expr, types.get(d.column)!) : d.portable && !timeless && !('number' in d.portable && bool && !/^[01]$/.test(d.portable.number)) ? renderPg(d.portable, bool, types.get(d.column)!) : undefined;
      if (value === undefined) p.notKept.push(`default of ${d.column}: ${d.expr} (${want.kind} SQL, not translated)`);
      else p.columns.push(`ALTER TABLE ${t} ALTER COLUMN ${q(d.column)} SET DEFAULT ${value}`);
    }
    for (const c of want.identity) {
      if (hasDefault.has(c) || !types.has(c)) continue;
      if (!/^(smallint|integer|bigint)$/.test(types.get(c)!)) {
        p.notKept.push(`numbering of ${c}: the column is ${types.get(c)!} here (an identity needs an integer type)`);
        continue;
      }
      // A key's columns are NOT NULL once the keys go on (before this step); another column must be already.
      if (nullable.has(c) && !want.keys?.primaryKey.includes(c)) {
        p.notKept.push(`numbering of ${c}: the column allows NULL here (an identity needs NOT NULL)`);
        continue;
      }
      // The sequence starts after the copied rows, so the next insert without the column gets a new number.
      p.columns.push(`ALTER TABLE ${t} ALTER COLUMN ${q(c)} ADD GENERATED BY DEFAULT AS IDENTITY; SELECT setval(pg_get_serial_sequence(${textLiteral(t)}, ${textLiteral(c)}), COALESCE(max(${q(c)}), 0) + 1, false) FROM ${t}`);
    }
    return p;
  },
};

/**
 * A PostgreSQL default on a column typed otherwise here: a literal cast to the source's type (an
 * enum's `'ok'::mood`, which the target may not have) goes in as the literal, which takes the
 * column's type; anything else as written.
 */
function sameKindDefault(expr: string, type: string): string {
  // The whole default is the literal and one cast to a type name (`'5'::integer * 2` is not).
  const m = /^('(?:[^']|'')*')::([a-z_"][\w ."]*(?:\(\d+(?:,\d+)?\))?(?:\[\])*)$/i.exec(expr);
  return m && m[2] !== type ? m[1]! : expr;
}

/** What typed creation and this step leave out of a table, named for the plan: exclusion constraints, partitioning, enum and domain types. */
async function unreadOf(conn: SqlConnection, reg: string, out: string[]): Promise<void> {
  const r = await conn.query(
    `SELECT 'constraint ' || conname || ': ' || pg_get_constraintdef(oid) || ' (not recreated)' FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'x'
     UNION ALL SELECT 'partitioning: ' || pg_get_partkeydef(to_regclass($1)) || ' (the partitions'' rows are copied into one table)' WHERE pg_get_partkeydef(to_regclass($1)) IS NOT NULL
     UNION ALL SELECT 'type of ' || a.attname || CASE t.typtype
         WHEN 'e' THEN ': enum ' || format_type(t.oid, NULL) || ' (' || (SELECT string_agg(enumlabel, ', ' ORDER BY enumsortorder) FROM pg_enum WHERE enumtypid = t.oid) || '), created as text'
         ELSE ': domain ' || format_type(t.oid, NULL) || ' (' || concat_ws(' ', format_type(t.typbasetype, t.typtypmod), (SELECT string_agg(pg_get_constraintdef(c.oid), ' ') FROM pg_constraint c WHERE c.contypid = t.oid)) || '), created as its base type' END
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
      WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped AND t.typtype IN ('e', 'd')
     UNION ALL SELECT 'collation ' || c.collname || ' of ' || string_agg(a.attname, ', ' ORDER BY a.attnum) || ': created with the database''s default collation'
       FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation JOIN pg_type t ON t.oid = a.atttypid
      WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped AND a.attcollation <> t.typcollation GROUP BY c.collname`,
    [reg],
  );
  for (const [line] of r.rows) out.push(String(line));
}

function renderPg(d: NonNullable<TableExtras['defaults'][number]['portable']>, bool: boolean, type: string): string {
  if (bool && 'number' in d) return d.number === '1' ? 'true' : 'false';
  // CURRENT_TIMESTAMP into a zone-less column is the session's local time: not the UTC the copied rows are in.
  if ('now' in d && d.utc && !/with time zone$/.test(type)) return d.now === 'date' || type === 'date' ? "((now() AT TIME ZONE 'UTC')::date)" : "(now() AT TIME ZONE 'UTC')";
  return renderDefault(d, { timestamp: 'CURRENT_TIMESTAMP', date: 'CURRENT_DATE' }, (b) => String(b));
}
