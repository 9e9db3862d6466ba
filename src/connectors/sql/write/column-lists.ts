import type { ColumnInfo } from '../types.js';

interface Node {
  next: Map<ColumnInfo, Node>;
  list?: ColumnInfo[];
}

/**
 * One array per distinct list of columns. Rows converted from JSON messages each build their own
 * column array; taking the shared one lets a batch group its rows, and the statement text be kept
 * per list, without building a signature string per row (a lookup per column, nothing allocated
 * once a list was seen).
 */
export class ColumnLists {
  private readonly root: Node = { next: new Map() };

  of(cols: ColumnInfo[]): ColumnInfo[] {
    let node = this.root;
    for (const c of cols) {
      let child = node.next.get(c);
      if (!child) node.next.set(c, (child = { next: new Map() }));
      node = child;
    }
    return (node.list ??= cols);
  }
}
