/** A request's deadline: `fire` runs when it passes, unless cleared first (Deadlines.clear). */
export interface Deadline {
  readonly at: number;
  fire: (() => void) | undefined;
}

/**
 * Timeouts of one length under one timer. Deadlines come in the order they are added, so the
 * timer waits for the oldest still pending and, when it fires, expires every one that passed.
 * A busy listener's per-request setTimeout/clearTimeout (a Timeout object linked into Node's
 * timer list, each) cost about a tenth of its CPU.
 */
export class Deadlines {
  private list: Deadline[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  add(fire: () => void): Deadline {
    const d: Deadline = { at: Date.now() + this.ms, fire };
    this.list.push(d);
    this.timer ??= setTimeout(this.sweep, this.ms);
    return d;
  }

  clear(d: Deadline): void {
    d.fire = undefined;
    this.trim();
  }

  /** Drops cleared deadlines from the front; with none pending, no timer is left to hold the process. */
  private trim(): void {
    const l = this.list;
    while (this.head < l.length && l[this.head]!.fire === undefined) this.head++;
    if (this.head === l.length) {
      this.list = [];
      this.head = 0;
      clearTimeout(this.timer);
      this.timer = undefined;
    } else if (this.head > 1024 && this.head * 2 > l.length) {
      this.list = l.slice(this.head);
      this.head = 0;
    }
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    const now = Date.now();
    const due: (() => void)[] = [];
    for (; this.head < this.list.length && this.list[this.head]!.at <= now; this.head++) {
      const d = this.list[this.head]!;
      if (d.fire) due.push(d.fire);
      d.fire = undefined;
    }
    this.trim();
    if (this.head < this.list.length) this.timer = setTimeout(this.sweep, Math.max(1, this.list[this.head]!.at - now));
    for (const f of due) f();
  };
}
