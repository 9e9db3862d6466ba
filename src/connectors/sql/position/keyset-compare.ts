import type { Dialect } from '../dialect.js';
import type { ColumnInfo } from '../types.js';

/**
 * `cols` compared with `values` by `op` (keyset paging): a row value `(a, b) > (x, y)`, or written
 * out as `a > x OR (a = x AND b > y)` where the kind says so (Dialect.expandRowComparison).
 */
export function keysetCompare(d: Dialect, cols: ColumnInfo[], values: string[], params: unknown[], op: '>' | '<='): string {
  if (d.expandRowComparison) {
    const strict = op === '>' ? '>' : '<';
    const ors: string[] = [];
    for (let i = 0; i < cols.length; i++) {
      const parts = cols.slice(0, i).map((c, j) => `${d.quote(c.name)} = ${d.cursorValue(c.type, values[j]!, params)}`);
      const last = i === cols.length - 1 ? op : strict;
      parts.push(`${d.quote(cols[i]!.name)} ${last} ${d.cursorValue(cols[i]!.type, values[i]!, params)}`);
      ors.push(`(${parts.join(' AND ')})`);
    }
    return ors.length === 1 ? ors[0]! : `(${ors.join(' OR ')})`;
  }
  if (cols.length === 1) return `${d.quote(cols[0]!.name)} ${op} ${d.cursorValue(cols[0]!.type, values[0]!, params)}`;
  const left = cols.map((c) => d.quote(c.name)).join(', ');
  const right = cols.map((c, i) => d.cursorValue(c.type, values[i]!, params)).join(', ');
  return `(${left}) ${op} (${right})`;
}
