import type { Dialect } from '../dialect.js';

/** One column change of a mirror that follows its source, as the sink's ALTER TABLE makes it. */
export type AlterColumn =
  | { op: 'add'; column: string; type: string }
  | { op: 'drop'; column: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'type'; column: string; type: string; nullable: boolean };

/** The standard SQL of a column change (PostgreSQL's, and mostly everyone's); kinds override what differs. */
export function standardAlter(d: Dialect, table: string, c: AlterColumn): string | undefined {
  const t = d.table(table);
  switch (c.op) {
    case 'add':
      // Added without NOT NULL: the rows already there have no value for it.
      return `ALTER TABLE ${t} ADD COLUMN ${d.quote(c.column)} ${c.type}`;
    case 'drop':
      return `ALTER TABLE ${t} DROP COLUMN ${d.quote(c.column)}`;
    case 'rename':
      return `ALTER TABLE ${t} RENAME COLUMN ${d.quote(c.from)} TO ${d.quote(c.to)}`;
    case 'type':
      return `ALTER TABLE ${t} ALTER COLUMN ${d.quote(c.column)} TYPE ${c.type}`;
  }
}
