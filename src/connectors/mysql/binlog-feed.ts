import { configError } from '../../core/errors.js';
import type { BinlogAssembler, BinlogEvent, Item } from './binlog-changes.js';

/**
 * Hands the reader's events to the assembler in order. When a row names a column the run has not
 * introspected (an ALTER TABLE since it read the table), the reader is paused and that event and
 * every later one wait while `introspect` reads the table again; then they are fed in order. A
 * column still unknown after that (added and dropped again since) cannot be typed: the run stops.
 */
export class EventFeed {
  private backlog: BinlogEvent[] | undefined;
  private retried: string | undefined;

  constructor(
    private readonly assembler: BinlogAssembler,
    private readonly h: {
      released(tx: Item[]): void;
      introspect(table: string): Promise<void>;
      pause(): void;
      resume(): void;
      failed(e: unknown): void;
    },
  ) {}

  feed(evt: BinlogEvent & { binlogName?: string }): void {
    if (this.backlog) {
      this.backlog.push(evt);
      return;
    }
    if (evt.getEventName() === 'rotate') this.assembler.file = evt.binlogName;
    const out = this.assembler.onEvent(evt);
    if (!out) return;
    if (Array.isArray(out)) {
      this.retried = undefined;
      this.h.released(out);
      return;
    }
    if ('unnamed' in out) {
      this.h.failed(configError(`the binlog holds changes of ${out.unnamed} written without column names (binlog_row_metadata was not FULL then): decoded with the table's columns now they could shift values; capture from a later position (start_position) or anew (snapshot=initial with another slot_name)`));
      return;
    }
    // A table the run is about to adopt (tables=*) is read twice: once to know it, once for its columns.
    if (!out.adopt && this.retried === out.refresh) {
      this.h.failed(configError(`a change of table ${out.refresh} in the binlog has a column the table no longer has nor had when this run read it (added and dropped since): its type is unknown, so the change cannot be rendered exactly; start a new capture with snapshot=initial and another slot_name`));
      return;
    }
    if (!out.adopt) this.retried = out.refresh;
    this.backlog = [evt];
    this.h.pause();
    this.h.introspect(out.refresh).then(
      () => {
        const waiting = this.backlog ?? [];
        this.backlog = undefined;
        for (const [i, e] of waiting.entries()) {
          this.feed(e);
          // Another refresh began: the rest waits behind it.
          if (this.backlog) return void (this.backlog as BinlogEvent[]).push(...waiting.slice(i + 1));
        }
        this.h.resume();
      },
      (e: unknown) => this.h.failed(e),
    );
  }
}
