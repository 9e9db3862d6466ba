import { PgBinder } from './bind.js';
import { Dialect, type UpsertOptions } from '../sql/dialect.js';
import type { TransactionListing } from '../sql/position/transaction-watch.js';
import { MISSING_TABLE, withUniques, type ColumnInfo, type SqlConnection, type TableInfo } from '../sql/types.js';
import { parsePgArray } from './array.js';
import type { PendingPosition } from '../sql/position/sink-position.js';
import { inlinePosition, positionMoved, tableIdentity } from './pg-positions.js';
import { pgAttributes, pgColumnType, pgTypeFromName } from './types.js';
import { textLiteral } from './literal.js';
import { MOVED_SEPARATOR, movedKeyParts, movedKeyReason } from '../sql/write/moved-key.js';

/** Starts the text of the value error a merge raises for a GENERATED ALWAYS identity that differs (upsertClause). */
const FIXED_IDENTITY = 'bridge:';

/** The reason in a server error raised by one of upsertClause's guards, or undefined. */
export function guardReason(message: string): string | undefined {
  const text = /^invalid input syntax for type boolean: "(bridge: [\s\S]*)"$/.exec(message)?.[1];
  const moved = text === undefined ? undefined : movedKeyParts(text);
  if (moved) return movedKeyReason(...moved, 'equal by its type or collation: citext, a nondeterministic collation', 'key by a column that compares exactly');
  return text?.startsWith('bridge: field ') ? text.slice(8) : undefined;
}

/** Types whose names need no schema: bound values are cast to them in columns=auto. */
const BUILTIN_CASTS = new Set(['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'varchar', 'bpchar', 'json', 'jsonb', 'bytea', 'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'uuid', 'interval', 'inet', 'cidr', 'macaddr', 'oid']);

/** `format_type()` names of the types bridge creates → their pg_type names. */
const FORMAT_NAMES: Record<string, string> = {
  boolean: 'bool',
  smallint: 'int2',
  integer: 'int4',
  bigint: 'int8',
  real: 'float4',
  'double precision': 'float8',
  'time with time zone': 'timetz',
  'character varying': 'varchar',
  'bit varying': 'varbit',
  character: 'bpchar',
  'timestamp with time zone': 'timestamptz',
  'timestamp without time zone': 'timestamp',
  'time without time zone': 'time',
};

export class PostgresDialect extends Dialect {
  override readonly exactResultTypes = true;

  /** The exact text: the server casts it to the column's type. */
  override tokenNumber(raw: string): unknown {
    return raw;
  }

  override readonly binder = new PgBinder();
  readonly kind = 'postgres' as const;
  readonly maxParams = 65535;
  readonly maxIdentLength = 63;
  override readonly rowPosition = 'ctid';
  readonly now = 'now()';
  override readonly updateReturning = true;

  quote(ident: string): string {
    return `"${ident.replace(/"/g, '""')}"`;
  }

  param(index: number): string {
    return `$${index}`;
  }

  leaseUntil(seconds: number): string {
    return `now() + interval '${Math.trunc(seconds)} seconds'`;
  }

  async introspect(conn: SqlConnection, table: string): Promise<TableInfo> {
    const reg = this.table(table);
    const cols = await conn.query(
      `SELECT a.attname, CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
              (SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder)::text FROM pg_enum e WHERE e.enumtypid = COALESCE(NULLIF(t.typbasetype, 0), t.oid)),
              a.attgenerated::text, CASE WHEN a.attgenerated <> '' THEN pg_get_expr(d.adbin, d.adrelid) END, t.typnamespace = 'pg_catalog'::regnamespace, t.typtype = 'd', a.attidentity::text,
              COALESCE(bt.typname, t.typname) = 'citext' OR (SELECT to_jsonb(c) ->> 'collisdeterministic' FROM pg_collation c WHERE c.oid = a.attcollation) = 'false'
         FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [reg],
    );
    if (cols.rows.length === 0) return MISSING_TABLE;
    const columns: ColumnInfo[] = cols.rows.map(([name, udt, fmt, nullable, labels, generated, expr, builtin, domain, identity, loose]) => {
      const base = String(udt).replace(/^_/, '');
      const c: ColumnInfo = { name: name as string, ...pgTypeFromName(udt as string), dbType: fmt as string, nullable: nullable === 't' || nullable === true };
      if (!String(udt).startsWith('_')) Object.assign(c, pgAttributes(String(udt), String(fmt)));
      if (typeof labels === 'string') Object.assign(c, { variant: 'enum', labels: parsePgArray(labels) as string[] });
      if (BUILTIN_CASTS.has(base)) c.castType = String(udt).startsWith('_') ? `${base}[]` : base;
      // attgenerated: 's' stored, 'v' virtual (PostgreSQL 18), '' an ordinary column.
      if (generated === 's' || generated === 'v') c.generated = { expr: String(expr), stored: generated === 's' };
      if (builtin === true || builtin === 't') c.kindBuiltin = true;
      if (domain === true || domain === 't') c.domain = true;
      if (identity === 'a') c.fixedIdentity = true;
      if (loose === true || loose === 't') c.looseEquality = true;
      return c;
    });
    const keys = await conn.query(
      `SELECT i.indexrelid::text, a.attname, i.indisprimary
         FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL
        ORDER BY i.indisprimary DESC, i.indexrelid, array_position(i.indkey::int2[], a.attnum)`,
      [reg],
    );
    const sets = new Map<string, string[]>();
    const primaryKey: string[] = [];
    for (const [index, name, primary] of keys.rows) {
      if (primary === 't') primaryKey.push(name as string);
      sets.set(index as string, [...(sets.get(index as string) ?? []), name as string]);
    }
    return withUniques({ exists: true, columns, primaryKey, uniqueSets: [...sets.values()] });
  }

  // COPY writes the values given for a GENERATED ALWAYS identity column; an INSERT (small batches) refused them with exit 1.
  override readonly insertOverriding = 'OVERRIDING SYSTEM VALUE ';

  /**
   * `fixed`: GENERATED ALWAYS identity columns among `update`, which PostgreSQL updates only to
   * DEFAULT (SET c = EXCLUDED.c failed the whole run, exit 1). They are left out of the SET, and a
   * stored row whose value differs is refused by its own value error, naming the field: skipping it
   * would leave the row unlike its source. `looseKeys` (ColumnInfo.looseEquality): a key of citext or a nondeterministic
   * collation matched 'A' for 'a' and wrote one over the other; the stored key must be the
   * message's, byte for byte (moved-key.ts). The errors' texts are the reasons (guardReason).
   */
  override upsertClause(keys: string[], update: string[], o: UpsertOptions = {}): string {
    const k = keys.map((x) => this.quote(x)).join(', ');
    const fixed = o.fixed ?? [];
    const set = update.filter((c) => !fixed.includes(c));
    const looseKeys = o.looseKeys ?? [];
    if (set.length === 0 && fixed.length === 0 && looseKeys.length === 0) return ` ON CONFLICT (${k}) DO NOTHING`;
    const t = o.target ?? '';
    // Not constants: PostgreSQL folds constant CASE arms when it plans, taken or not.
    const raise = (same: string, text: string) => `(CASE WHEN ${same} THEN true ELSE (${text})::boolean END)`;
    const guards = [
      ...looseKeys.map((c) => {
        const [stored, given] = [`(${t}.${this.quote(c)})::text COLLATE "C"`, `(EXCLUDED.${this.quote(c)})::text COLLATE "C"`];
        const shown = (v: string) => `left(${v}, 24)`;
        return raise(`${stored} = ${given}`, `${textLiteral(`${FIXED_IDENTITY} ${c}${MOVED_SEPARATOR}`)} || ${shown(stored)} || ${textLiteral(MOVED_SEPARATOR)} || ${shown(given)}`);
      }),
      ...fixed.map((c) => {
        const [stored, given] = [`${t}.${this.quote(c)}`, `EXCLUDED.${this.quote(c)}`];
        const reason = `${textLiteral(`${FIXED_IDENTITY} field ${c} is GENERATED ALWAYS AS IDENTITY in the target, which PostgreSQL updates only to DEFAULT: the row with this key holds `)} || ${stored} || ', the message ' || COALESCE(${given}::text, 'null') || '; leave the field out, or make the column GENERATED BY DEFAULT'`;
        return raise(`${stored} IS NOT DISTINCT FROM ${given}`, reason);
      }),
    ];
    const assign = (set.length ? set : [keys[0]!]).map((c) => `${this.quote(c)} = EXCLUDED.${this.quote(c)}`).join(', ');
    return ` ON CONFLICT (${k}) DO UPDATE SET ${assign}${guards.length ? ` WHERE ${guards.join(' AND ')}` : ''}`;
  }

  override castParam(placeholder: string, col: ColumnInfo): string {
    return col.castType ? `${placeholder}::${col.castType}` : placeholder;
  }

  async listTables(conn: SqlConnection, schema: string | undefined): Promise<string[]> {
    // A partitioned table is read through its parent (relkind p); its partitions are not listed again.
    const r = await conn.query(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname = COALESCE($1, current_schema()) ORDER BY c.relname`,
      [schema ?? null],
    );
    return r.rows.map((x) => String(x[0]));
  }

  keyHash(cols: string[]): string {
    return `hashtext(concat_ws(',', ${cols.map((c) => `${c}::text`).join(', ')}))::bigint`;
  }

  /** pg_class.reltuples (statistics); a table never analysed is counted. */
  override async estimateRows(conn: SqlConnection, table: string): Promise<number> {
    const r = await conn.query(`SELECT reltuples::bigint::text FROM pg_class WHERE oid = to_regclass($1)`, [this.table(table)]);
    const n = Number(r.rows[0]?.[0] ?? -1);
    return n >= 0 ? n : super.estimateRows(conn, table);
  }

  /**
   * From a PostgreSQL table, a built-in type the mapping would make text (inet, money, point, tsvector,
   * ranges…) is created as itself: as text it would compare, sort and index differently.
   */
  override sameKindType(src: ColumnInfo, untyped: boolean): string | undefined {
    return src.kindBuiltin && src.type === 'text' && this.columnType(src.name, src, untyped) === 'text' && src.dbType !== 'text' ? src.dbType : undefined;
  }

  describeType(name: string, definition: string): ColumnInfo {
    const array = definition.endsWith('[]');
    const base = definition.replace(/\[\]$/, '').replace(/\(.*\)/, '').trim();
    const udt = (array ? '_' : '') + (FORMAT_NAMES[base] ?? base);
    const c: ColumnInfo = { name, ...pgTypeFromName(udt), dbType: definition, nullable: true };
    if (!array) Object.assign(c, pgAttributes(udt, definition));
    if (BUILTIN_CASTS.has(udt.replace(/^_/, ''))) c.castType = array ? `${udt.slice(1)}[]` : udt;
    return c;
  }

  columnType(_name: string, src: ColumnInfo, srcUntyped: boolean): string {
    return pgColumnType(src, srcUntyped);
  }

  /** PostgreSQL before 18 has only stored generated columns: a virtual one is re-created stored (the same values). */
  override generatedColumn(expr: string): string {
    return `GENERATED ALWAYS AS (${expr}) STORED`;
  }

  createQueueTable(table: string): string[] {
    const t = this.table(table);
    const idx = this.quote(`${this.baseName(table)}_locked_until_idx`.slice(0, 63));
    return [
      `CREATE TABLE IF NOT EXISTS ${t} (id BIGSERIAL PRIMARY KEY, payload BYTEA NOT NULL, locked_until TIMESTAMPTZ NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      `CREATE INDEX IF NOT EXISTS ${idx} ON ${t} (locked_until)`,
    ];
  }

  createCheckpointTable(table: string): string[] {
    return [`CREATE TABLE IF NOT EXISTS ${this.table(table)} (cursor_id VARCHAR(255) PRIMARY KEY, last_value TEXT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())`];
  }

  createPositionTable(table: string): string[] {
    return [`CREATE TABLE IF NOT EXISTS ${this.table(table)} (route VARCHAR(255) PRIMARY KEY, last_position TEXT NOT NULL, seq BIGINT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())`];
  }

  upsertCheckpoint(table: string): string {
    return `INSERT INTO ${this.table(table)} (cursor_id, last_value, updated_at) VALUES ($1, $2, now())
            ON CONFLICT (cursor_id) DO UPDATE SET last_value = EXCLUDED.last_value, updated_at = EXCLUDED.updated_at`;
  }

  // Exactly once: the position with the COPY in one round trip, and the sink table's identity (pg-positions.ts).
  override inlinePosition = (p: PendingPosition): string => inlinePosition(this, p);
  override positionMoved = (e: unknown, p: PendingPosition): Error | undefined => positionMoved(this, e, p);
  override tableIdentity = (conn: SqlConnection, table: string): Promise<string | undefined> => tableIdentity(this, conn, table);

  override readonly tracksTransactions = true;

  /**
   * Transactions of this database's sessions (and prepared ones) that can still commit a row below
   * a read, as `pid:xact_start` (a pid alone is reused). One that has no transaction id has written
   * nothing: idle, it holds no row at all (a row it writes later takes its sequence value then, above
   * the read), so it is left out — an idle read-only session left open by some other client held the
   * saved position back for good. Running a statement, it may be inside an INSERT that has taken its
   * value and not yet written: noted as `a:pid:xact_start|query_start`, and resolved (see stillOpen)
   * once a later listing shows that statement over without an id. For time cursors every transaction
   * counts: PostgreSQL's now() is the transaction's start, so a later write can land below the read.
   */
  override async openTransactions(conn: SqlConnection, clock = false, own: string[] = []): Promise<TransactionListing> {
    const r = await conn.query(
      `SELECT pid::text, xact_start::text, backend_xid IS NOT NULL, state, query_start::text, extract(epoch from xact_start) * 1000 FROM pg_stat_activity
        WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid() AND pid::text <> ALL($1::text[])
          AND backend_type NOT IN ('autovacuum worker', 'autovacuum launcher', 'walsender')
       UNION ALL SELECT 'prepared:' || gid, NULL, true, NULL, NULL, extract(epoch from prepared) * 1000 FROM pg_prepared_xacts WHERE database = current_database()`,
      [own],
    );
    const open = new Set<string>();
    const about = new Map<string, { session: string; startedMs: number }>();
    for (const [pid, start, wrote, state, queryStart, startedMs] of r.rows) {
      const session = String(pid).startsWith('prepared:') ? String(pid) : `pid ${String(pid)}`;
      const base = start === null ? String(pid) : `${String(pid)}:${String(start)}`;
      const written = wrote === true || wrote === 't' || clock;
      if (!written && String(state).startsWith('idle')) continue;
      const name = written ? base : `a:${base}|${String(queryStart)}`;
      open.add(name);
      about.set(name, { session, startedMs: Number(startedMs) });
      if (!written) about.set(base, { session, startedMs: Number(startedMs) });
    }
    return { open, about };
  }

  /** A running statement without a transaction id is waited for until it ends, or under the transaction's name once it has written. */
  override stillOpen(member: string, now: TransactionListing, notedAt: number): string | undefined {
    if (!member.startsWith('a:')) return super.stillOpen(member, now, notedAt);
    if (now.open.has(member)) return member;
    const base = member.slice(2, member.lastIndexOf('|'));
    return now.open.has(base) ? base : undefined;
  }

  /** Without superuser or pg_read_all_stats, pg_stat_activity hides other users' transactions. */
  override async transactionBlindness(conn: SqlConnection): Promise<string | undefined> {
    const r = await conn.query(`SELECT rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', 'member') FROM pg_roles WHERE rolname = current_user`);
    const ok = r.rows[0]?.[0];
    return ok === true || ok === 't' ? undefined : 'it cannot see other users\' transactions: GRANT pg_read_all_stats TO <user>';
  }

  /** Serialises concurrent DDL of two processes on the same name (CREATE … IF NOT EXISTS races in PostgreSQL). */
  override ddlLock(name: string): string {
    return `SELECT pg_advisory_xact_lock(hashtext(${textLiteral(name)}))`;
  }
}
