const INTEGER = /^-?\d+$/;

/** A cursor position: the cursor value and, when paging by (cursor, key), the key of that row. */
export interface Position {
  value: string;
  key?: string[] | undefined;
}

/**
 * Follows one noted transaction into a newer listing: the name to keep waiting on (itself, or the
 * transaction a statement noted earlier has since started), or undefined once it has ended.
 */
export type Follow = (member: string, notedAt: number) => string | undefined;

/** One poll that read past the frontier: up to where, and the transactions open after its read (once seen). */
interface Window {
  upTo: Position;
  open: string[] | undefined;
  notedAt: number;
  at: number;
  /** Identities of the rows delivered with a position in (previous window's upTo, upTo]. */
  ids: string[];
}

/**
 * The frontier of exact cursor paging under concurrent writers. A writer takes its cursor value
 * (a sequence number, now()) before it commits, and writers commit out of order, so a poll can read
 * past rows that become visible only later. Each poll that reads past the frontier opens a window
 * that remembers the transactions open right after its read: any row at or below the window's end
 * that the read could not see belongs to one of them. Once they have all ended (and `lagMs` has
 * passed, for values set by clients' clocks), the window is re-read, rows not delivered yet are
 * delivered, and the frontier — what a checkpoint stores — moves to the window's end.
 */
export class Frontier {
  /** Everything at or below it was delivered. undefined = the start of the table. */
  frontier: Position | undefined;
  /** The highest position read. */
  high: Position | undefined;
  private readonly windows: Window[] = [];
  /** Identities delivered above the frontier, counted (a table without a key may hold equal rows). */
  private readonly delivered = new Map<string, number>();

  constructor(
    start: Position | undefined,
    private readonly lagMs: number,
  ) {
    this.frontier = start;
    this.high = start;
  }

  get pending(): number {
    return this.windows.length;
  }

  /** Rows delivered above the frontier (kept to skip them when a window is re-read). */
  get above(): number {
    return this.delivered.size;
  }

  /** Whether the window a read up to `upTo` opened has closed (the frontier is at or past it). */
  isClosed(upTo: Position): boolean {
    return !this.windows.some((w) => w.upTo === upTo);
  }

  /** Transactions the oldest window still waits for. */
  blockers(): string[] {
    return this.windows[0]?.open ?? [];
  }

  /** Identities delivered above the frontier, each as often as delivered (what a sink's position keeps, issue 28). */
  aboveIds(): string[] {
    const out: string[] = [];
    for (const [id, n] of this.delivered) for (let i = 0; i < n; i++) out.push(id);
    return out;
  }

  /**
   * Resumes where a sink's position says a run stood: `ids` were delivered above the frontier, up
   * to `high`. One window covers them; the transactions it waits for are those open at the next
   * listing (any that could still commit below `high` is open then, or has committed and is read).
   */
  restore(high: Position, ids: string[]): void {
    this.read(high, ids, 0);
  }

  /** A poll read `ids` up to `upTo`; the transactions to wait for are noted by the next observe(). */
  read(upTo: Position, ids: string[], now: number): void {
    this.high = upTo;
    for (const id of ids) this.delivered.set(id, (this.delivered.get(id) ?? 0) + 1);
    this.windows.push({ upTo, open: undefined, notedAt: 0, at: now, ids });
  }

  /**
   * A poll of a unique integer cursor read `values` (ascending) up to `upTo`. When they are every
   * integer after the highest position and no window is open, no row can still commit among them
   * (each value is taken): the frontier moves there at once, so a crash re-delivers no more than the
   * batch in flight. False (nothing done) when there is a gap, which only a window can wait out.
   */
  readDense(upTo: Position, values: string[]): boolean {
    if (this.windows.length || !this.high || !values.length || !INTEGER.test(this.high.value)) return false;
    // A column declared integer may hold other values where types are not enforced (SQLite INT PRIMARY KEY, not the rowid).
    for (const v of values) if (!INTEGER.test(v)) return false;
    const first = BigInt(values[0]!);
    if (first !== BigInt(this.high.value) + 1n || BigInt(values[values.length - 1]!) - first !== BigInt(values.length - 1)) return false;
    this.frontier = this.high = upTo;
    return true;
  }

  /**
   * The transactions open now, listed after the reads of the windows not yet observed: any that
   * could commit below those reads is among them, or has ended. Names starting with `~` are
   * aliases: they match a transaction noted earlier, but are not noted.
   */
  observe(open: Set<string>, now: number): void {
    let noted: string[] | undefined;
    for (const w of this.windows)
      if (!w.open) {
        w.open = noted ??= [...open].filter((t) => !t.startsWith('~'));
        w.notedAt = now;
      }
  }

  /**
   * The end of the newest window that can close now: its transactions and those of every window
   * before it have ended (`follow` finds none still open) and the lag has passed. undefined = none.
   */
  closable(follow: Follow, now: number): Position | undefined {
    let end: Position | undefined;
    for (const w of this.windows) {
      if (!w.open || now - w.at < this.lagMs) break;
      w.open = w.open.map((t) => follow(t, w.notedAt)).filter((t): t is string => t !== undefined);
      if (w.open.length) break;
      end = w.upTo;
    }
    return end;
  }

  /** Of the identities found re-reading up to a window's end, those not delivered yet (each as often as it is missing). */
  missing(ids: string[]): string[] {
    const left = new Map<string, number>();
    const out: string[] = [];
    for (const id of ids) {
      const have = left.get(id) ?? this.delivered.get(id) ?? 0;
      if (have > 0) left.set(id, have - 1);
      else out.push(id);
    }
    return out;
  }

  /**
   * Rows found below the highest read while the windows still wait (LateRows.sweep), delivered
   * now: counted as delivered above the frontier, as the newest window's, so no re-read of a window
   * delivers them again and the frontier passes them when that window closes.
   */
  deliverEarly(ids: string[]): void {
    const w = this.windows[this.windows.length - 1];
    if (!w) return;
    for (const id of ids) this.delivered.set(id, (this.delivered.get(id) ?? 0) + 1);
    w.ids.push(...ids);
  }

  /** Windows up to `upTo` are closed (their late rows delivered, at or below it): the frontier moves there. */
  close(upTo: Position): void {
    while (this.windows.length) {
      const w = this.windows.shift()!;
      for (const id of w.ids) {
        const n = (this.delivered.get(id) ?? 1) - 1;
        if (n > 0) this.delivered.set(id, n);
        else this.delivered.delete(id);
      }
      if (w.upTo === upTo) break;
    }
    this.frontier = upTo;
  }
}
