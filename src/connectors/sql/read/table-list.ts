import type { Endpoint } from '../../../config/endpoint.js';
import { configError } from '../../../core/errors.js';
import { openDatabase } from '../open-database.js';
import { checkIdent } from '../identifiers.js';
import { loadKind } from '../kind.js';

interface Item {
  schema: string | undefined;
  /** The name as written, or the pattern a `*` makes of it. */
  name: string;
  pattern: RegExp | undefined;
}

/** A name as a pattern that matches only itself ("order-items (old)", "a+b"). */
const literally = (s: string): string => s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/**
 * `a,b`, `*`, `log_*`, `schema.*` → items. A `*` stands for any run of characters in the name
 * (never in the schema); everything else is a name as a single table's (see checkIdent).
 */
export function parseTableList(list: string, what: string, maxLength: number): Item[] {
  const items = list.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw configError(`${what} "${list}" has an empty name: write a,b,c without empty entries`);
  return items.map((text) => {
    const dot = text.indexOf('.');
    const schema = dot < 0 ? undefined : checkIdent(text.slice(0, dot), `${what} schema`, maxLength);
    const name = dot < 0 ? text : text.slice(dot + 1);
    if (!name.includes('*')) return { schema, name: checkIdent(name, what, maxLength), pattern: undefined };
    checkIdent(name.replace(/\*/g, 'x'), what, maxLength);
    return { schema, name, pattern: new RegExp(`^${name.split('*').map(literally).join('.*')}$`, 'u') };
  });
}

function namable(name: string, schema: string | undefined, list: string, maxLength: number): void {
  try {
    checkIdent(name, 'table', maxLength);
  } catch (e) {
    throw configError(`${(e as Error).message}; the source's table ${JSON.stringify(schema ? `${schema}.${name}` : name)} matches table=${list}: leave it out with an --exclude pattern that matches it (a * where the dot is), or rename it`);
  }
}

/** bridge's own checkpoint tables (default checkpoint_store) and a sink's position table are never copied by a pattern. */
export const OWN_TABLE = /^(bridge_cursors_|bridge_positions$)/;

/**
 * The tables a source's `table=` list names, in the order written (a pattern's matches by name),
 * without those `exclude` names, each once. A named table that does not exist is a config error,
 * as is a list that ends up empty.
 */
export async function expandTables(ep: Endpoint, exclude: string[], warn: (s: string) => void): Promise<string[]> {
  const driver = await loadKind(ep.kind);
  const d = driver.dialect;
  const items = parseTableList(ep.fields.table as string, 'table', d.maxIdentLength);
  const excluded = exclude.length ? parseTableList(exclude.join(','), '--exclude', d.maxIdentLength) : [];
  const { db, release } = await openDatabase(ep, driver, warn);
  const listed = new Map<string | undefined, string[]>();
  try {
    for (const s of new Set(items.map((i) => i.schema))) listed.set(s, await d.listTables(db, s));
  } finally {
    await release();
  }
  const matches = (i: Item, schema: string | undefined, name: string): boolean => (i.schema === undefined || i.schema === schema) && (i.pattern ? i.pattern.test(name) : i.name === name);
  const out: string[] = [];
  for (const item of items) {
    const names = listed.get(item.schema)!;
    if (!item.pattern && !names.includes(item.name)) throw configError(`table ${item.schema ? `${item.schema}.` : ''}${item.name} (in the list table=${ep.fields.table as string}) does not exist in the ${ep.kind} source`);
    for (const name of names) {
      if (!matches(item, item.schema, name) || (item.pattern && OWN_TABLE.test(name))) continue;
      if (excluded.some((x) => matches(x, item.schema, name))) continue;
      // A listed name table= could not write (a dot in it) is said before anything is copied.
      if (item.pattern) namable(name, item.schema, ep.fields.table as string, d.maxIdentLength);
      const full = item.schema ? `${item.schema}.${name}` : name;
      if (!out.includes(full)) out.push(full);
    }
  }
  if (out.length === 0) throw configError(`table=${ep.fields.table as string} names no table of the ${ep.kind} source${excluded.length ? ' once --exclude is applied' : ''}`);
  return out;
}
