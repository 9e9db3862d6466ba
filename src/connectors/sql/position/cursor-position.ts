import { configError } from '../../../core/errors.js';
import type { CommitPosition, SinkPositions } from '../../../core/route.js';
import type { Frontier, Position } from './cursor-frontier.js';

/**
 * A cursor's position as a sink keeps it (exactly once, issue 28). The source's checkpoint keeps
 * only the frontier, below which nothing can still arrive; rows read above it (while transactions
 * that could still commit below were open) are delivered again after a restart. The sink's copy
 * also names those rows, so a resumed run skips them when it re-reads up to `high`.
 */
interface Stored {
  bridge_position: 1;
  source: string;
  frontier: Position | null;
  high: Position | null;
  /** Identities delivered above the frontier (as Frontier keeps them). */
  above: string[];
}

/** Where a sink keeps one cursor's position: loads it at start, and gives each batch its commit. */
export class CursorSinkPosition {
  readonly route: string;

  constructor(
    private readonly book: SinkPositions,
    private readonly source: string,
    cursorId: string,
  ) {
    this.route = `${cursorId}@${source}`;
  }

  /** Asks the sink for the positions it keeps (undefined: it keeps none, or there is no cursor_id). */
  static async open(positions: (() => Promise<SinkPositions | undefined>) | undefined, source: string, cursorId: string | undefined): Promise<CursorSinkPosition | undefined> {
    if (!positions || cursorId === undefined) return undefined;
    const book = await positions();
    return book ? new CursorSinkPosition(book, source, cursorId) : undefined;
  }

  /** The stored position, if the sink has one for this route. */
  async load(): Promise<{ frontier: Position | undefined; high: Position | undefined; above: string[] } | undefined> {
    const text = await this.book.load(this.route);
    if (text === undefined) return undefined;
    let s: Stored;
    try {
      s = JSON.parse(text) as Stored;
    } catch {
      s = undefined as unknown as Stored;
    }
    const where = `${this.book.description} (route ${this.route})`;
    if (s?.bridge_position !== 1 || !Array.isArray(s.above)) throw configError(`the position in ${where} is not a bridge position; delete that row to start over`);
    if (s.source !== this.source) throw configError(`the position in ${where} was written for ${s.source}, not ${this.source}: use another cursor_id, or delete that row`);
    return { frontier: s.frontier ?? undefined, high: s.high ?? undefined, above: s.above };
  }

  /** The position after a poll: the frontier, the highest read, and what was delivered between. */
  commit(f: Frontier): CommitPosition {
    const stored: Stored = { bridge_position: 1, source: this.source, frontier: f.frontier ?? null, high: f.high ?? null, above: f.frontier === f.high ? [] : f.aboveIds() };
    return { route: this.route, text: JSON.stringify(stored) };
  }

  describe(): string {
    return `${this.book.description}, route ${this.route}`;
  }
}
