import { configError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { CommitPosition, DescribedColumn, DescribedTable, HeldPart, PlanItem, PoolStats, Reply, Sink, SinkContext, SinkPositions } from '../core/route.js';

/** The sink of one source table, and that table as the source describes it. */
export interface RoutedSink {
  sink: Sink;
  table: DescribedTable | undefined;
}

/**
 * One sink per source table, for a source that streams several (change capture of a table list):
 * each message goes to the sink of its `bridge.table`, in order. A batch is written run by run —
 * consecutive messages of one table together — so changes keep the source's order within each
 * table and across tables. Each table's sink is opened before anything is written (its checks
 * and typed creation first), with that table as its source table.
 */
export class TableRouterSink implements Sink {
  private readonly sinks = new Map<string, RoutedSink>();
  readonly concurrency = 1;

  constructor(
    private readonly tables: () => readonly string[],
    private readonly make: (table: string) => Promise<RoutedSink>,
  ) {}

  /** The sink made ahead of open for the one table captured (its positions). */
  private only: { table: string; routed: RoutedSink } | undefined;

  private ctx: SinkContext | undefined;

  async open(ctx: SinkContext): Promise<void> {
    this.ctx = ctx;
    for (const t of this.tables()) await this.add(t);
  }

  private async add(t: string): Promise<void> {
    const routed = this.only?.table === t ? this.only.routed : await this.make(t);
    this.sinks.set(t, routed);
    await routed.sink.open({ ...this.ctx!, sourceTable: routed.table });
  }

  /**
   * One table captured: its sink keeps the stream's position with its rows (exactly once). Several:
   * each table is written in transactions of its own, so no one position stands for a batch — none
   * is kept (a mirror applies changes sent again by key).
   */
  async positions(dryRun: boolean, warn: (text: string) => void): Promise<SinkPositions | undefined> {
    const tables = this.tables();
    if (tables.length !== 1) return undefined;
    this.only ??= { table: tables[0]!, routed: await this.make(tables[0]!) };
    return this.only.routed.sink.positions?.(dryRun, warn);
  }

  /** The one table's sink commits a position alone (see positions). */
  savePosition = async (commit: CommitPosition): Promise<void> => {
    await this.only?.routed.sink.savePosition?.(commit);
  };

  private sinkOf(m: Message): Sink {
    const table = m.metadata?.['bridge.table'];
    const routed = typeof table === 'string' ? this.sinks.get(table) : undefined;
    if (!routed) throw configError(`a message of table ${String(table)} has no sink table: it is not one of ${[...this.sinks.keys()].join(', ')}`);
    return routed.sink;
  }

  /** Consecutive messages of one table, in order. */
  private runs(messages: Message[]): { sink: Sink; from: number; to: number }[] {
    const out: { sink: Sink; from: number; to: number }[] = [];
    messages.forEach((m, i) => {
      const last = out[out.length - 1];
      // The same (shared) metadata object as the message before: the same table.
      if (last && m.metadata !== undefined && m.metadata === messages[i - 1]!.metadata) return void (last.to = i + 1);
      const sink = this.sinkOf(m);
      if (last && last.sink === sink) last.to = i + 1;
      else out.push({ sink, from: i, to: i + 1 });
    });
    return out;
  }

  /** A table the source began capturing while it ran (tables=*, created since): its sink is made now. */
  private async addNew(messages: Message[]): Promise<void> {
    for (const m of messages) {
      const t = m.metadata?.['bridge.table'];
      if (typeof t === 'string' && !this.sinks.has(t) && this.tables().includes(t)) await this.add(t);
    }
  }

  /**
   * A part of a source transaction in progress: each table's run into what its sink holds; the end
   * (commit, with the position when one table is captured, or abort) goes to every table's sink. On
   * a failure every sink rolls back what it holds, so none keeps locks the transaction read again
   * would wait for.
   */
  async writeHeld(messages: Message[], part: HeldPart, commit?: CommitPosition): Promise<void> {
    // Every table's sink as of now: one opened for this part's messages is among them.
    const sinks = () => [...this.sinks.values()].map((r) => r.sink);
    try {
      await this.addNew(messages);
      const runs = this.runs(messages);
      for (const run of runs) await run.sink.writeHeld!(runs.length === 1 ? messages : messages.slice(run.from, run.to), { tx: part.tx });
      if (part.end) for (const sink of sinks()) await sink.writeHeld!([], part, commit);
    } catch (e) {
      for (const sink of sinks()) await sink.writeHeld!([], { tx: part.tx, end: 'abort' }).catch(() => {});
      throw e;
    }
  }

  async write(messages: Message[], commit?: CommitPosition): Promise<Reply[] | void> {
    await this.addNew(messages);
    const replies: Reply[] = new Array<Reply>(messages.length);
    // A position is only given with one table captured (positions()): one run, one sink.
    const runs = this.runs(messages);
    for (const run of runs) {
      // One table's batch goes on as the same array (its sink may have converted it ahead).
      const r = await run.sink.write(runs.length === 1 ? messages : messages.slice(run.from, run.to), commit);
      if (r) r.forEach((x, i) => (replies[run.from + i] = x));
    }
    return replies;
  }

  ahead(messages: Message[]): void {
    // Only batches of changes are worked on ahead (a keyed mirror's): no per-message lookup for others.
    if (!messages[0]?.metadata?.['bridge.op']) return;
    try {
      const runs = this.runs(messages);
      if (runs.length === 1) runs[0]!.sink.ahead?.(messages);
    } catch {
      return; // a table whose sink write() makes: nothing to do ahead
    }
  }

  async locate(messages: Message[]): Promise<{ index: number; error: Error } | undefined> {
    for (const run of this.runs(messages)) {
      const found = await run.sink.locate?.(messages.slice(run.from, run.to));
      if (found) return { index: run.from + found.index, error: found.error };
    }
    return undefined;
  }

  flush(waiting?: boolean): void {
    for (const { sink } of this.sinks.values()) sink.flush?.(waiting);
  }

  async plan(): Promise<PlanItem[]> {
    const out: PlanItem[] = [];
    for (const [t, { sink }] of this.sinks) for (const item of (await sink.plan?.()) ?? []) out.push({ label: `${item.label} [${t}]`, value: item.value });
    return out;
  }

  /** Each table's mapping under its name (the columns given are the first table's; each sink maps its own). */
  planMapping(_columns: DescribedColumn[]): PlanItem[] {
    const out: PlanItem[] = [];
    for (const [t, { sink, table }] of this.sinks) if (table && sink.planMapping) out.push({ label: `table ${t}`, value: '' }, ...sink.planMapping(table.columns));
    return out;
  }

  poolStats(): PoolStats | undefined {
    return this.sinks.values().next().value?.sink.poolStats?.();
  }

  async close(): Promise<void> {
    for (const { sink } of this.sinks.values()) await sink.close().catch(() => {});
  }
}
