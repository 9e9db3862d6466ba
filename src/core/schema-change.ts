import { Message } from './message.js';
import type { DescribedTable } from './route.js';

/** One change of a captured table's columns, as the source's stream shows it. */
export type ColumnChange = { op: 'add'; column: string } | { op: 'drop'; column: string } | { op: 'rename'; from: string; to: string } | { op: 'type'; column: string };

/** A captured table's new shape: its columns now (as a source table a sink can create from), and what changed. */
export interface SchemaShape {
  table: DescribedTable;
  changes: ColumnChange[];
}

const shapes = new WeakMap<Message, Promise<SchemaShape>>();

/**
 * A schema message (bridge.op = schema), in the stream where the change happened: changes before it
 * have the old columns, changes after it the new ones. Only database sinks are sent these (they
 * keep a mirror's columns in step); its payload says what changed, for logs.
 */
export function schemaMessage(table: string, changes: ColumnChange[], shape: Promise<SchemaShape>, seed: string): Message {
  const m = new Message(JSON.stringify({ table, changes }), { 'bridge.op': 'schema', 'bridge.table': table }, seed);
  shape.catch(() => {});
  shapes.set(m, shape);
  return m;
}

/** The shape a schema message carries, or undefined for any other message. */
export const schemaOf = (m: Message): Promise<SchemaShape> | undefined => (m.metadata?.['bridge.op'] === 'schema' ? shapes.get(m) : undefined);

/**
 * What changed between two column lists of one table, in the stream's order (`before` undefined:
 * the first shape this run sees, compared by the sink with its table). Columns keep their place:
 * one added is appended, one dropped leaves the others in order, one renamed keeps its place and
 * type — so a same-length list whose names differ at a place of the same type is a rename.
 */
export function diffColumns(before: { name: string; type: string }[] | undefined, after: { name: string; type: string }[]): ColumnChange[] {
  if (!before) return [];
  const out: ColumnChange[] = [];
  const names = new Set(after.map((c) => c.name));
  const had = new Set(before.map((c) => c.name));
  const gone = before.filter((c) => !names.has(c.name));
  const added = after.filter((c) => !had.has(c.name));
  if (gone.length === added.length && gone.length > 0 && before.length === after.length) {
    for (const g of gone) {
      const at = before.indexOf(g);
      const now = after[at]!;
      if (added.includes(now) && now.type === g.type) out.push({ op: 'rename', from: g.name, to: now.name });
      else return [...gone.map((c) => ({ op: 'drop' as const, column: c.name })), ...added.map((c) => ({ op: 'add' as const, column: c.name }))];
    }
  } else {
    for (const c of gone) out.push({ op: 'drop', column: c.name });
    for (const c of added) out.push({ op: 'add', column: c.name });
  }
  for (const c of after) {
    const was = before.find((b) => b.name === c.name);
    if (was && was.type !== c.type) out.push({ op: 'type', column: c.name });
  }
  return out;
}
