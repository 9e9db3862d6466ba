import { Message } from './message.js';
import type { DescribedTable } from './route.js';

/** One change of a captured table's columns, as the source's stream shows it. */
export type ColumnChange =
  | { op: 'add'; column: string }
  | { op: 'drop'; column: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'type'; column: string }
  /** Columns went and came, and nothing tells a rename from a drop and an add (see diffColumns). */
  | { op: 'unclear'; gone: string[]; added: string[] };

/** A captured table's new shape: its columns now (as a source table a sink can create from), and what changed. */
export interface SchemaShape {
  table: DescribedTable;
  changes: ColumnChange[];
}

const shapes = new WeakMap<Message, Promise<SchemaShape>>();

/**
 * A schema message (bridge.op = schema), in the stream where the change happened: changes before it
 * have the old columns, changes after it the new ones. Only database sinks are sent these (they
 * keep a mirror's columns in step); its payload names the table.
 */
export function schemaMessage(table: string, shape: Promise<SchemaShape>, seed: string): Message {
  const m = new Message(JSON.stringify({ table }), { 'bridge.op': 'schema', 'bridge.table': table }, seed);
  shape.catch(() => {});
  shapes.set(m, shape);
  return m;
}

/** The shape a schema message carries, or undefined for any other message. */
export const schemaOf = (m: Message): Promise<SchemaShape> | undefined => (m.metadata?.['bridge.op'] === 'schema' ? shapes.get(m) : undefined);

/** A column as the stream shows it: its name, its type (as the source spells it), and its number in the table when known. */
export interface StreamColumn {
  name: string;
  type: string;
  /** The source's own column number (PostgreSQL attnum): kept by a rename, new for an added column. */
  attnum?: number;
}

/**
 * What changed between two column lists of one table, in the stream's order (`before` undefined:
 * the first shape this run sees, compared by the sink with its table). A column that went and one
 * that came are the same column renamed when they have the same number in the table (attnum), or,
 * where the numbers are not known, when no column was added (then none was dropped) and the new name
 * stands in the old one's place — only where an added column is always appended (`addsAppend`:
 * PostgreSQL; MariaDB and MySQL add a column FIRST or AFTER another); otherwise the change is 'unclear' (the sink stops rather than
 * guess). A renamed column whose type changed too gets both changes.
 */
export function diffColumns(before: StreamColumn[] | undefined, after: StreamColumn[], addsAppend = true, known: [string, string][] = []): ColumnChange[] {
  if (!before) return [];
  const out: ColumnChange[] = [];
  const names = new Set(after.map((c) => c.name));
  const had = new Set(before.map((c) => c.name));
  const gone = before.filter((c) => !names.has(c.name));
  const added = after.filter((c) => !had.has(c.name));
  const renamed = new Map<StreamColumn, StreamColumn>();
  // Renames the source's own DDL named (the binlog's ALTER TABLE statements) are certain.
  for (const [from, to] of known) {
    const g = gone.find((c) => c.name === from);
    const n = added.find((c) => c.name === to);
    if (g && n) {
      renamed.set(g, n);
      gone.splice(gone.indexOf(g), 1);
      added.splice(added.indexOf(n), 1);
    }
  }
  const numbered = [...before, ...after].every((c) => c.attnum !== undefined && c.attnum > 0);
  // PostgreSQL appends an added column: a list as long as before whose last column is not new had no
  // column added, so none dropped either, and each new name stands where the old one stood (renames).
  const onlyRenames = addsAppend && before.length === after.length && had.has(after[after.length - 1]!.name);
  // Otherwise, without the columns' numbers, a column that went beside one that came is not guessed at: a rename keeps the values, a drop and an add do not.
  if (gone.length && added.length && !numbered && !onlyRenames) return [{ op: 'unclear', gone: gone.map((c) => c.name), added: added.map((c) => c.name) }];
  for (const g of gone) {
    const same = numbered ? added.find((n) => n.attnum === g.attnum) : after[before.indexOf(g)];
    if (same && added.includes(same)) renamed.set(g, same);
  }
  for (const [g, n] of renamed) out.push({ op: 'rename', from: g.name, to: n.name });
  for (const c of gone) if (!renamed.has(c)) out.push({ op: 'drop', column: c.name });
  for (const c of added) if (![...renamed.values()].includes(c)) out.push({ op: 'add', column: c.name });
  for (const c of after) {
    const was = before.find((b) => b.name === c.name) ?? [...renamed].find(([, n]) => n === c)?.[0];
    if (was && was.type !== c.type) out.push({ op: 'type', column: c.name });
  }
  return out;
}
