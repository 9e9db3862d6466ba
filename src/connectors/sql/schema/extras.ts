import type { ColumnInfo, SqlConnection } from '../types.js';

/**
 * What typed creation leaves out of a migrated table and the migration's last step adds after the
 * data (pgloader's and pgcopydb's order): secondary indexes, foreign keys, checks, defaults and the
 * columns that number themselves. Read from the source in a portable form, plus each item's own
 * SQL for a target of the same kind.
 */
export interface TableExtras {
  /** The kind that read them (an item's `own` SQL means the same only to this kind). */
  kind: string;
  indexes: IndexDef[];
  foreignKeys: ForeignKeyDef[];
  checks: CheckDef[];
  defaults: DefaultDef[];
  /** Of `unread`, what a target of the source's own kind does not keep either (MariaDB/MySQL collations other than binary). */
  lost?: string[];
  /** MariaDB/MySQL: a column's ON UPDATE expression (`current_timestamp(6)`), kept by that family alone. */
  onUpdate?: Record<string, string>;
  /** Columns that number themselves (identity, serial, AUTO_INCREMENT, SQLite's INTEGER PRIMARY KEY). */
  identity: string[];
  /** What was there but cannot be read portably (told in the plan as not kept). */
  unread: string[];
  /** Index names are the table's own (MariaDB/MySQL), not the schema's: a kind whose are the schema's prefixes them. */
  indexNamesPerTable?: boolean;
  /** The primary key and unique column lists (as the dialect introspects them): a table created with its keys after the load gets them here. */
  keys?: { primaryKey: string[]; unique: string[][] };
}

export interface IndexDef {
  name: string;
  unique: boolean;
  /** Plain columns in order (undefined: an expression or a partial index, kept only by the same kind). */
  columns?: string[];
  descending?: boolean[];
  /** The index's definition in its kind's SQL, `CREATE … INDEX {name} ON {table} …` (see ownIndex). */
  own?: string;
  /** The kind's own access method (MariaDB FULLTEXT/SPATIAL, PostgreSQL gin/gist): kept only by the same kind. */
  method?: string;
}

const SLOTS = '{name} ON {table}';

/**
 * An index's own SQL with its quoted name and table put in. Not String.replace: a name's `$$` or
 * `$&` would be read as a replacement pattern, and a name holding "{table}" would be filled in too.
 */
export function ownIndex(own: string, name: string, table: string): string {
  const at = own.indexOf(SLOTS);
  return `${own.slice(0, at)}${name} ON ${table}${own.slice(at + SLOTS.length)}`;
}

export type RefAction = 'NO ACTION' | 'RESTRICT' | 'CASCADE' | 'SET NULL' | 'SET DEFAULT';

export interface ForeignKeyDef {
  name: string;
  columns: string[];
  /** The referenced table's name in the source (schema left out). */
  refTable: string;
  refColumns: string[];
  onDelete: RefAction;
  onUpdate: RefAction;
  /** Checked at commit (PostgreSQL's DEFERRABLE INITIALLY DEFERRED) or deferrable on demand (INITIALLY IMMEDIATE). */
  deferrable?: 'deferred' | 'immediate';
  /** MATCH FULL: a key with some columns NULL is refused unless all are. */
  matchFull?: boolean;
}

export interface CheckDef {
  name: string;
  /** The condition in the source kind's SQL (without CHECK and the outer parentheses' meaning changed). */
  expr: string;
}

/** A column default: portable when it is a literal or the current time, else only the source kind's SQL. */
export interface DefaultDef {
  column: string;
  /** As the source kind writes it. */
  expr: string;
  portable?: PortableDefault;
}

/**
 * `now`: the current time or day. `utc`: in UTC, where a target without zones keeps it so (SQLite's
 * CURRENT_TIMESTAMP; an instant type, which bridge writes as UTC into a zone-less column); else the
 * session's local time, as each database gives it.
 */
export type PortableDefault = { number: string } | { string: string } | { boolean: boolean } | { now: 'timestamp' | 'date'; utc?: true } | { null: true };

/** A source's default for a column whose "current time" is UTC (see PortableDefault): marked so. */
export function inUtc(p: PortableDefault | undefined, utc: boolean): PortableDefault | undefined {
  return p && 'now' in p && utc ? { ...p, utc: true } : p;
}

/** The statements that dress one table, by phase, and what cannot be kept (one line each). */
export interface ExtrasPlan {
  /** Defaults and identities: catalog changes, before the indexes. */
  columns: string[];
  /** The primary key and unique keys the table was created without (built after the load, before its indexes). */
  keys: string[];
  indexes: string[];
  /** Foreign keys and checks: each an `add` (PostgreSQL: NOT VALID) and, where it is separate, the `validate`. */
  constraints: ConstraintStep[];
  notKept: string[];
  /** Every index and constraint name this plan stands for, made now or by an earlier run. */
  names: string[];
}

/**
 * One foreign key or check: `add` on one connection (then `after`, even when it failed); then
 * `validate` (an error leaves it unvalidated, as PostgreSQL's NOT VALID) or `orphans`, a query
 * whose first row means rows break it (then `drop` takes it away again).
 */
export interface ConstraintStep {
  name: string;
  add: string[];
  after?: string[];
  validate?: string;
  orphans?: string;
  drop?: string;
}

/**
 * The foreign keys to add: each whose referenced table is in the copy (with its name there) and
 * not on the table yet (`fresh` records the name and says whether it is missing); the others
 * referencing a table left out are named in `notKept`.
 */
export function foreignKeysToAdd(want: TableExtras, target: TargetName, notKept: string[], fresh: (name: string) => boolean): { f: ForeignKeyDef; ref: string }[] {
  const out: { f: ForeignKeyDef; ref: string }[] = [];
  for (const f of want.foreignKeys) {
    const ref = target(f.refTable);
    if (ref === undefined) notKept.push(`foreign key ${f.name}: references ${f.refTable}, which this copy does not include`);
    else if (fresh(f.name)) out.push({ f, ref });
  }
  return out;
}

/** How a target kind names the tables of the migration (source name → target name, undefined: not migrated). */
export type TargetName = (sourceTable: string) => string | undefined;

/** A database kind's side of the migration's last step (KindDriver.schemaExtras). */
export interface SchemaExtras {
  /** A migration creates this kind's tables without their keys and adds them after the load (PostgreSQL: one sort per key, not a btree insert per row; not InnoDB, whose rows live in the primary key, nor SQLite's rowid tables). */
  keysAfterLoad: boolean;
  /** The table's extras as this kind's catalog holds them. `table`: as written in the route (`schema.name` or `name`). */
  read(conn: SqlConnection, table: string): Promise<TableExtras>;
  /**
   * The statements that add `want` (read from a table of kind want.kind) to `table`, which holds
   * `have` now; `created`: the columns a dry run's table would be created with (it is not there).
   */
  plan(conn: SqlConnection, table: string, want: TableExtras, have: TableExtras, target: TargetName, created?: ColumnInfo[]): Promise<ExtrasPlan>;
}

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/**
 * A default's portable form, from the text a catalog gives: `0`, `(0)`, `'a''b'`, `'x'::text`,
 * `true`, `now()`, `CURRENT_TIMESTAMP(6)`, `current_timestamp()`, `CURRENT_DATE`, `NULL`.
 */
export function portableDefault(text: string): PortableDefault | undefined {
  let t = text.trim();
  while (/^\(.*\)$/s.test(t) && balanced(t.slice(1, -1))) t = t.slice(1, -1).trim();
  // PostgreSQL's casts of a literal: 'x'::character varying, (0)::numeric, '{}'::jsonb.
  const cast = /^(.*?)::[a-z ]+(\(\d+(,\d+)?\))?(\[\])?$/is.exec(t);
  if (cast && !/::/.test(cast[1]!)) return portableDefault(cast[1]!);
  if (NUMBER.test(t)) return { number: t };
  const s = /^'((?:[^']|'')*)'$/s.exec(t);
  if (s) return { string: s[1]!.replace(/''/g, "'") };
  if (/^(true|false)$/i.test(t)) return { boolean: t.toLowerCase() === 'true' };
  if (/^null$/i.test(t)) return { null: true };
  if (/^(now\(\)|current_timestamp(\(\d*\))?|localtimestamp(\(\d*\))?|transaction_timestamp\(\)|datetime\('now'\))$/i.test(t)) return { now: 'timestamp' };
  if (/^(current_date|curdate\(\)|date\('now'\))$/i.test(t)) return { now: 'date' };
  return undefined;
}

function balanced(s: string): boolean {
  let depth = 0;
  let quoted = false;
  for (const ch of s) {
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** A portable default in a kind's SQL: strings quoted with '' doubled, the current time by the kind's word for it. */
export function renderDefault(p: PortableDefault, now: { timestamp: string; date: string }, bool: (b: boolean) => string): string {
  if ('number' in p) return p.number;
  if ('string' in p) return `'${p.string.replace(/'/g, "''")}'`;
  if ('boolean' in p) return bool(p.boolean);
  if ('null' in p) return 'NULL';
  return now[p.now];
}

/** The names a table holds beyond its keys that the plan does not account for: someone else's schema. */
export function foreignNames(have: TableExtras, plan: ExtrasPlan): string[] {
  const mine = new Set(plan.names);
  return [...have.indexes.map((i) => i.name), ...have.foreignKeys.map((f) => f.name), ...have.checks.map((c) => c.name)].filter((n) => !mine.has(n));
}

export const ACTIONS: Record<string, RefAction> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

/** A referential action as a catalog spells it (`NO ACTION`, `CASCADE`, …), defaulting to NO ACTION. */
export function refAction(text: unknown): RefAction {
  const t = String(text ?? '').toUpperCase();
  return (['NO ACTION', 'RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT'] as const).find((a) => a === t) ?? ACTIONS[String(text)] ?? 'NO ACTION';
}

const CHECK_TOKEN = /\s+|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]|'(?:[^']|'')*'|\d+(?:\.\d+)?|::\s*[a-z_][a-z0-9_ ]*(?:\(\d+(?:,\s*\d+)?\))?|<=|>=|<>|!=|[-+*/%=<>(),]|[a-z_][a-z0-9_$]*/giy;
const CHECK_WORDS = new Set(['and', 'or', 'not', 'between', 'in', 'is', 'null', 'like', 'true', 'false']);

/**
 * A check written only with columns, numbers, strings, comparisons, AND/OR/NOT, BETWEEN, IN, IS
 * NULL and LIKE means the same in every kind: it is re-quoted for the target (`quote`), literals'
 * casts (PostgreSQL's `(0)::numeric`) dropped. Anything else (a function, a cast of a column, a
 * kind's own operator) gives undefined: not translated.
 */
export function translateCheck(expr: string, quote: (ident: string) => string): string | undefined {
  let out = '';
  let last = '';
  CHECK_TOKEN.lastIndex = 0;
  while (CHECK_TOKEN.lastIndex < expr.length) {
    const start = CHECK_TOKEN.lastIndex;
    const m = CHECK_TOKEN.exec(expr);
    if (!m || m.index !== start) return undefined;
    const tok = m[0];
    const c = tok[0]!;
    if (/\s/.test(c)) out += ' ';
    else if (c === '"' || c === '`') out += quote(tok.slice(1, -1).replace(c === '"' ? /""/g : /``/g, c));
    else if (c === '[') out += quote(tok.slice(1, -1));
    else if (tok.startsWith('::')) {
      // Only a literal's cast: after a number, a string or a parenthesis closing around one.
      if (!/^('|\d|\))/.test(last)) return undefined;
      continue;
    } else if (/^[a-z_]/i.test(c)) {
      const word = CHECK_WORDS.has(tok.toLowerCase());
      // A name followed by a parenthesis is a function call (IN's list is the one word that takes one).
      if (/^\s*\(/.test(expr.slice(CHECK_TOKEN.lastIndex)) && tok.toLowerCase() !== 'in') return undefined;
      out += word ? tok.toUpperCase() : quote(tok);
    }
    else out += tok;
    if (!/^\s/.test(tok)) last = tok;
  }
  return out.trim();
}
