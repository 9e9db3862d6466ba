import { OWN_TABLE, parseTableList } from '../sql/read/table-list.js';
import type { Database } from '../sql/database.js';
import { postgresKind } from './index.js';

type Item = ReturnType<typeof parseTableList>[number];

/**
 * Tables created while a capture of a pattern (`tables=*`, `schema.*`, `log_*`) runs. A publication
 * that publishes a schema or every table (FOR TABLES IN SCHEMA, FOR ALL TABLES: the user's) streams a
 * new table's changes from its creation, so every row it has comes through the slot: it is captured
 * from its first change on. A table the pattern matched at the start but the run left out (no key)
 * stays out, as do bridge's own tables; a new one without a key is named once and left out. (A
 * publication bridge makes lists the tables: a new table is not in it, and is not streamed.)
 */
export class NewTables {
  private readonly decided = new Map<string, string | undefined>();

  private constructor(
    private readonly items: Item[],
    /** What each pattern matched at the start (captured or not), as listed names. */
    private readonly existing: Set<string>,
    private readonly current: string,
    private readonly say: { warn(text: string): void; info(text: string): void; adopted(table: string): void },
  ) {}

  /** undefined when `listed` names tables only (no pattern). */
  static async open(db: Database, listed: string, say: NewTables['say']): Promise<NewTables | undefined> {
    const d = postgresKind.dialect;
    const items = parseTableList(listed, 'tables', d.maxIdentLength).filter((i) => i.pattern);
    if (!items.length) return undefined;
    const existing = new Set<string>();
    for (const schema of new Set(items.map((i) => i.schema))) for (const name of await d.listTables(db, schema)) existing.add(schema ? `${schema}.${name}` : name);
    const current = String((await db.query('SELECT current_schema()')).rows[0]?.[0]);
    return new NewTables(items, existing, current, say);
  }

  /** A relation the capture does not know: the name to capture it under (bridge.table), or undefined to leave it out. */
  adopt(schema: string, name: string, keyed: boolean): string | undefined {
    const key = `${schema}.${name}`;
    if (this.decided.has(key)) return this.decided.get(key);
    const item = this.items.find((i) => (i.schema ?? this.current) === schema && i.pattern!.test(name));
    const full = item?.schema ? key : name;
    let out: string | undefined;
    if (item && !OWN_TABLE.test(name) && !this.existing.has(full)) {
      if (keyed) {
        out = full;
        this.say.adopted(full);
        this.say.info(`capturing ${full}, created while the capture ran (its changes from its creation on)`);
      } else this.say.warn(`${full} was created while the capture ran, without a primary key or replica identity: not captured`);
    }
    this.decided.set(key, out);
    return out;
  }
}
