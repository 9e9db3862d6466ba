import { configError, transientError, type BridgeError } from '../../../core/errors.js';
import type { Message } from '../../../core/message.js';
import { schemaOf, type ColumnChange, type SchemaShape } from '../../../core/schema-change.js';
import { withoutPosition } from '../position/sink-position.js';
import type { AlterColumn } from './alter-column.js';
import { fitKeys } from './create-typed.js';
import type { Database } from '../database.js';
import type { ColumnInfo, TableInfo } from '../types.js';

const norm = (t: string): string => t.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The column changes that bring the sink table (`info`) to a captured table's new shape, in the
 * stream's order: renames, drops and type changes the stream showed, then every column the sink
 * still lacks (a change made while no run streamed shows only as a new shape: columns added then
 * are added; a rename or drop then is refused, see below). Each is made
 * only if the table does not have it yet, so that a change streamed again changes nothing.
 */
export function alterationsFor(db: Database, table: string, info: TableInfo, shape: SchemaShape): AlterColumn[] {
  const d = db.dialect;
  const types = fitKeys(d, table, shape.table);
  const want = (name: string): string | undefined => types[shape.table.columns.findIndex((c) => c.name === name)];
  const have = new Map<string, ColumnInfo>(info.columns.map((c) => [c.name, c]));
  const out: AlterColumn[] = [];
  for (const ch of shape.changes) {
    if (ch.op === 'unclear') throw unclear(table, ch.added, ch.gone);
    if (ch.op === 'rename' && have.has(ch.from) && !have.has(ch.to)) {
      out.push(ch);
      have.set(ch.to, have.get(ch.from)!);
      have.delete(ch.from);
    } else if (ch.op === 'drop' && have.has(ch.column)) {
      out.push(ch);
      have.delete(ch.column);
    } else if (ch.op === 'type' && have.has(ch.column)) {
      const type = want(ch.column);
      const cur = have.get(ch.column)!;
      if (type !== undefined && norm(d.describeType(ch.column, type).dbType) !== norm(cur.dbType)) out.push({ op: 'type', column: ch.column, type, nullable: cur.nullable });
    }
  }
  const names = new Set(shape.table.columns.map((c) => c.name));
  const missing = shape.table.columns.filter((c) => !have.has(c.name));
  // The first shape a run sees, after changes no run streamed: a column the sink lacks beside one the
  // source no longer has is a rename, or a drop and an add — told apart only by what happened, so not guessed.
  const extra = shape.changes.length === 0 ? [...have.keys()].filter((n) => !names.has(n)) : [];
  if (missing.length && extra.length) throw unclear(table, missing.map((c) => c.name), extra);
  shape.table.columns.forEach((c, i) => {
    if (!have.has(c.name) && types[i]) out.push({ op: 'add', column: c.name, type: types[i] });
  });
  return out;
}

/** Columns went and came, and nothing tells a rename (values kept) from a drop and an add (values gone): not guessed. */
function unclear(table: string, added: string[], gone: string[]): Error {
  const list = (names: string[], one: string, many: string): string => `${names.join(', ')} ${names.length > 1 ? many : one}`;
  return configError(
    `the columns of ${table}'s source changed: ${list(added, 'is new', 'are new')} and ${list(gone, 'is gone', 'are gone')}, and what was read does not tell a rename from a drop and an add (no run saw the columns before the change); nothing was written past it. ` +
      `If you know which, make ${table} match (ALTER TABLE … RENAME COLUMN, or ADD and DROP COLUMN) and run again; or rebuild it: drop ${table} and start the capture again from its snapshot (another slot_name, or drop the slot with bridge slots drop / the binlog position kept under cdc:<slot_name>), and run again`,
  );
}

const said = (c: ColumnChange | AlterColumn): string =>
  c.op === 'rename' ? `${c.from} renamed to ${c.to}` : c.op === 'add' ? `${c.column} added` : c.op === 'drop' ? `${c.column} dropped` : c.op === 'unclear' ? `${c.gone.join(', ')} went, ${c.added.join(', ')} came` : `${c.column} changed type`;

/**
 * Brings a mirror to its source's new columns before the changes that have them are written. A
 * table bridge keeps (auto_create_table=true) is altered; any other stops the run (exit 2) before
 * writing past the change, with the statements that would make it right: the slot keeps the change,
 * and the next run, after them, goes on. Resolves true when the table changed (its writer is then made again).
 */
export async function followSchema(db: Database, table: string, shape: SchemaShape, manage: boolean, warn: (s: string) => void): Promise<boolean> {
  const d = db.dialect;
  const info = await d.introspect({ query: (s, p) => db.query(s, p) }, table);
  const changes = alterationsFor(db, table, info, shape);
  if (changes.length === 0) return false;
  const ddl = changes.map((c) => d.alterColumn(table, c));
  const what = changes.map(said).join(', ');
  const cannot = changes.find((_c, i) => ddl[i] === undefined);
  if (cannot) throw configError(`the captured table's columns changed (${what}): ${d.kind} cannot ${said(cannot).replace(/changed type/, 'change its type')} in place; rebuild ${table} with the new type (or copy again into a new table), then run again`);
  // Not inside a transaction held open for a source transaction in progress: DDL would lock out the writes of those that commit meanwhile.
  if (db.held) throw transientError(`the captured table's columns changed (${what}) inside a transaction in progress: it is read again whole, after its commit`);
  if (!manage)
    throw configError(`the captured table's columns changed (${what}); ${table} is not kept in step by bridge (auto_create_table is off), so nothing was written past the change. Run on the sink: ${ddl.join('; ')}; then run again: the slot streams the change again`);
  const lock = d.ddlLock(table);
  await db.transaction(async (c) => {
    if (lock) await c.query(lock);
    for (const sql of ddl) await c.query(sql!);
  });
  warn(`${table} follows its source's columns (${what}): ${ddl.join('; ')}`);
  return true;
}

/**
 * A batch of change capture with schema messages: the changes before each are written with the
 * columns they have, then the mirror follows the new columns (`follow`), then the rest. The parts
 * before the last go without the batch's position (the last write commits it): a kill between them
 * re-sends the batch, which a mirror writes over by key.
 */
export async function writeAcrossSchema(db: Database, messages: Message[], o: { write(part: Message[]): Promise<unknown>; follow(shape: SchemaShape): Promise<void> }): Promise<void> {
  let from = 0;
  for (let i = 0; i < messages.length; i++) {
    const shape = schemaOf(messages[i]!);
    if (!shape) continue;
    const part = messages.slice(from, i);
    if (part.length) await withoutPosition(db, () => o.write(part));
    from = i + 1;
    await withoutPosition(db, async () => o.follow(await shape));
  }
  if (from < messages.length) await o.write(messages.slice(from));
  // The batch ended with a column change: the position goes alone (nothing to write with it).
  else if (db.positionPending()) await db.transaction(async () => {});
}

/** A captured table gained (or renamed) a column its mirror lacks: stop rather than drop the values. */
export function schemaChanged(names: string[], table: string): BridgeError {
  const s = names.length > 1 ? 's' : '';
  return configError(
    `field${s} ${names.join(', ')} ha${s ? 've' : 's'} no column in ${table}: the captured table's columns changed (ADD or RENAME COLUMN); stopped before writing it. ` +
      `Add it to ${table} (ALTER TABLE ${table} ADD COLUMN …), or set extra_column, and run again: the slot streams the change again`,
  );
}
