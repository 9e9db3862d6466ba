/**
 * The requests of an HTTP sink that have not been answered yet, so the progress line can say what
 * a copy waits on: a peer that accepts and then stalls otherwise looks like a hung bridge.
 */
const SHOWN_AFTER_MS = 1000;

export class Outstanding {
  private readonly open = new Map<number, { since: number; started: boolean }>();
  private seq = 0;

  constructor(
    private readonly host: string,
    private readonly timeoutMs: number,
  ) {}

  /** A request went out; returns its handle. */
  begin(): number {
    this.open.set(++this.seq, { since: Date.now(), started: false });
    return this.seq;
  }

  /** Its answer's headers came in (the body may still stall). */
  headers(id: number): void {
    const r = this.open.get(id);
    if (r) r.started = true;
  }

  end(id: number): void {
    this.open.delete(id);
  }

  /** `host: 5 requests, oldest 2.4 s (no answer yet; request_timeout_ms 3000)`, or undefined when nothing waited a second. */
  describe(now = Date.now()): string | undefined {
    let oldest: { since: number; started: boolean } | undefined;
    for (const r of this.open.values()) if (!oldest || r.since < oldest.since) oldest = r;
    // A healthy peer answers within a second: only a wait worth reading is shown.
    if (!oldest || now - oldest.since < SHOWN_AFTER_MS) return undefined;
    const n = this.open.size;
    const age = ((now - oldest.since) / 1000).toFixed(1).replace(/\.0$/, '');
    const state = oldest.started ? 'answer started, not finished' : 'no answer yet';
    return `${this.host}: ${n} request${n === 1 ? '' : 's'}, oldest ${age} s (${state}; request_timeout_ms ${this.timeoutMs})`;
  }
}
