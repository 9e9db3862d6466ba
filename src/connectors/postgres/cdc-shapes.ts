import type { Message } from '../../core/message.js';
import { diffColumns, schemaMessage, type SchemaShape, type StreamColumn } from '../../core/schema-change.js';
import type { Relation } from './pgoutput.js';

/** A relation's columns as schema messages compare them (names, type oid:typmod). */
export const columnsKey = (rel: Relation): string => JSON.stringify(rel.columns.map((c) => ({ name: c.name, type: `${c.typeOid}:${c.typmod}` })));

/**
 * Each captured table's columns as the stream last showed them (names, type oid:typmod), and with
 * their numbers once known: the first time in a run, or changed since, a schema message goes before
 * the changes that have them (the sink compares them with its table).
 */
export class ShapeWatch {
  private readonly seen = new Map<string, string>();
  private readonly resolved = new Map<string, Promise<StreamColumn[]>>();

  constructor(private readonly describe: (relation: Relation) => Promise<{ table: SchemaShape['table']; attnums: number[] }>) {}

  /** The table's columns at the stream's start, with their numbers (see seedShapes). */
  seed(table: string, cols: StreamColumn[]): void {
    this.seen.set(table, JSON.stringify(cols.map((c) => ({ name: c.name, type: c.type }))));
    this.resolved.set(table, Promise.resolve(cols));
  }

  /** The schema message `id` for this relation message of `table`, when its columns are new to the run or changed. */
  note(table: string, rel: Relation, id: string): Message | undefined {
    const key = columnsKey(rel);
    if (this.seen.get(table) === key) return undefined;
    this.seen.set(table, key);
    // What changed is known once the columns' numbers are (a rename keeps its attnum; a dropped and an added column do not share one).
    const now = rel.columns.map((c) => ({ name: c.name, type: `${c.typeOid}:${c.typmod}` }));
    const before = this.resolved.get(table);
    const described = this.describe(rel);
    const cols = described.then((d) => now.map((c, i) => ({ ...c, attnum: d.attnums[i] })));
    cols.catch(() => {});
    this.resolved.set(table, cols);
    const shape = Promise.all([before, described, cols]).then(([b, d, c]) => ({ table: d.table, changes: diffColumns(b, c) }));
    return schemaMessage(table, shape, id);
  }

  /** The table's columns as this relation shows them differ from those seen before in the run. */
  changed(table: string, rel: Relation): boolean {
    return this.seen.has(table) && this.seen.get(table) !== columnsKey(rel);
  }

  /** Every table's columns are compared with its mirror again, as at a run's start (changes shown since were not written). */
  forget(): void {
    this.seen.clear();
    this.resolved.clear();
  }
}
