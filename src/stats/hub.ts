import { EventEmitter } from 'node:events';
import type { PoolStats, RequestStats } from '../core/route.js';

export type RouteState = 'starting' | 'running' | 'waiting' | 'retrying' | 'stopping' | 'done' | 'failed';

/** A point-in-time copy of the counters: what every view renders. */
export interface StatsSnapshot {
  command: string;
  source: string;
  sink: string;
  mode: string;
  state: RouteState;
  startedAt: number;
  now: number;
  rowsRead: number;
  rowsWritten: number;
  bytesWritten: number;
  batches: number;
  inFlight: number;
  retries: number;
  deadLettered: number;
  dropped: number;
  /** Values written through a documented lossy conversion. */
  lossy: number;
  position: string | undefined;
  checkpoint: string | undefined;
  /** What delivery the route promises (cli/guarantee.ts): `at least once`, `at least once, idempotent`. */
  delivery: string | undefined;
  estimatedRows: number | null;
  sourcePool: PoolStats | undefined;
  sinkPool: PoolStats | undefined;
  slotLagBytes: number | undefined;
  requests: RequestStats | undefined;
  /** What the sink waits on (an HTTP peer that has not answered), when it does. */
  waitingOn: string | undefined;
  lastError: string | undefined;
  /** The source has read everything there is and waits for more (tail). */
  caughtUp: boolean;
}

/** A percentage is shown only while the estimate means something: before it is passed, and not once a tail waits for new rows. */
export function progressRatio(s: StatsSnapshot): number | undefined {
  if (!s.estimatedRows || s.caughtUp || s.rowsWritten > s.estimatedRows) return undefined;
  return s.rowsWritten / s.estimatedRows;
}

export interface HubEvents {
  warning: [text: string];
  info: [text: string];
  state: [state: RouteState];
}

/**
 * Counters the pipeline bumps and views read. Views sample `snapshot()` on a timer; the pipeline
 * never waits for a view.
 */
export class StatsHub extends EventEmitter<HubEvents> {
  command = '';
  source = '';
  sink = '';
  mode = '';
  state: RouteState = 'starting';
  startedAt = Date.now();
  rowsRead = 0;
  rowsWritten = 0;
  bytesWritten = 0;
  batches = 0;
  inFlight = 0;
  retries = 0;
  deadLettered = 0;
  dropped = 0;
  lossy = 0;
  position: string | undefined;
  checkpoint: string | undefined;
  delivery: string | undefined;
  estimatedRows: number | null = null;
  lastError: string | undefined;
  sourcePool: (() => PoolStats | undefined) | undefined;
  sinkPool: (() => PoolStats | undefined) | undefined;
  slotLag: (() => number | undefined) | undefined;
  requestStats: (() => RequestStats | undefined) | undefined;
  sinkWaiting: (() => string | undefined) | undefined;
  sourceCaughtUp: (() => boolean | undefined) | undefined;

  setState(state: RouteState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit('state', state);
  }

  warn(text: string): void {
    this.emit('warning', text);
  }

  info(text: string): void {
    this.emit('info', text);
  }

  snapshot(): StatsSnapshot {
    return {
      command: this.command,
      source: this.source,
      sink: this.sink,
      mode: this.mode,
      state: this.state,
      startedAt: this.startedAt,
      now: Date.now(),
      rowsRead: this.rowsRead,
      rowsWritten: this.rowsWritten,
      bytesWritten: this.bytesWritten,
      batches: this.batches,
      inFlight: this.inFlight,
      retries: this.retries,
      deadLettered: this.deadLettered,
      dropped: this.dropped,
      lossy: this.lossy,
      position: this.position,
      checkpoint: this.checkpoint,
      delivery: this.delivery,
      estimatedRows: this.estimatedRows,
      sourcePool: this.sourcePool?.(),
      sinkPool: this.sinkPool?.(),
      slotLagBytes: this.slotLag?.(),
      requests: this.requestStats?.(),
      waitingOn: this.sinkWaiting?.(),
      lastError: this.lastError,
      caughtUp: this.state === 'running' && this.inFlight === 0 && this.sourceCaughtUp?.() === true,
    };
  }
}
