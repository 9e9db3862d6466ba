import type { StatsHub, StatsSnapshot } from './hub.js';

type Labels = Record<string, string>;
interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** One metric family, computed from the routes' snapshots when scraped (nothing is counted per row). */
interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  samples(route: string, s: StatsSnapshot): Sample[];
}

const counter = (name: string, help: string, of: (s: StatsSnapshot) => number): Family => ({ name, help, type: 'counter', samples: (route, s) => [{ labels: { route }, value: of(s) }] });
const gauge = (name: string, help: string, of: (s: StatsSnapshot) => number | undefined): Family => ({
  name,
  help,
  type: 'gauge',
  samples: (route, s) => {
    const v = of(s);
    return v === undefined || !Number.isFinite(v) ? [] : [{ labels: { route }, value: v }];
  },
});

/** `id=1500` → 1500: a position is a gauge only when it is one number (a composite key, an LSN, a time is not). */
function numericPosition(p: string | undefined): number | undefined {
  const m = p === undefined ? null : /^[A-Za-z_][\w.]*=(-?\d+(?:\.\d+)?)$/.exec(p);
  return m ? Number(m[1]) : undefined;
}

const STATES = ['starting', 'running', 'waiting', 'retrying', 'stopping', 'done', 'failed'] as const;

const FAMILIES: Family[] = [
  counter('bridge_rows_read_total', 'Rows (messages) read from the source.', (s) => s.rowsRead),
  counter('bridge_rows_written_total', 'Rows (messages) the sink confirmed.', (s) => s.rowsWritten),
  counter('bridge_bytes_written_total', 'Bytes of the rows the sink confirmed.', (s) => s.bytesWritten),
  counter('bridge_batches_total', 'Batches the sink confirmed.', (s) => s.batches),
  counter('bridge_retries_total', 'Retries after a transient failure, each of a whole batch (a read, a write or an acknowledgement), not of single messages.', (s) => s.retries),
  counter('bridge_dead_lettered_total', 'Messages the sink rejected, written to the dead-letter endpoint.', (s) => s.deadLettered),
  counter('bridge_dropped_fields_total', 'Fields without a target column (columns=auto without extra_column).', (s) => s.dropped),
  counter('bridge_lossy_values_total', 'Values written through a documented lossy conversion.', (s) => s.lossy),
  gauge('bridge_in_flight_batches', 'Batches being written.', (s) => s.inFlight),
  gauge('bridge_position', 'Source position when it is one number (cursor or key value).', (s) => numericPosition(s.position)),
  gauge('bridge_estimated_rows', "The source's estimate of its rows.", (s) => s.estimatedRows ?? undefined),
  gauge('bridge_replication_slot_lag_bytes', 'WAL the replication slot holds back (change capture).', (s) => s.slotLagBytes),
  gauge('bridge_caught_up', '1 while the source has read everything and waits for more.', (s) => (s.caughtUp ? 1 : 0)),
  {
    name: 'bridge_route_state',
    help: 'The state of each route: 1 for the current one.',
    type: 'gauge',
    samples: (route, s) => STATES.map((state) => ({ labels: { route, state }, value: s.state === state ? 1 : 0 })),
  },
  {
    name: 'bridge_pool_connections',
    help: 'Connections of each side\'s pool by state (in_use, idle, waiting for one, max).',
    type: 'gauge',
    samples: (route, s) =>
      (['source', 'sink'] as const).flatMap((side) => {
        const p = side === 'source' ? s.sourcePool : s.sinkPool;
        return p ? Object.entries({ in_use: p.inUse, idle: p.idle, waiting: p.waiting, max: p.max }).map(([state, value]) => ({ labels: { route, side, state }, value })) : [];
      }),
  },
  {
    name: 'bridge_http_requests_total',
    help: 'Requests the listener answered, by status (serve).',
    type: 'counter',
    samples: (route, s) => Object.entries(s.requests?.statuses ?? {}).map(([status, value]) => ({ labels: { route, status }, value })),
  },
  {
    name: 'bridge_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to its answer (serve).',
    type: 'histogram',
    samples: (route, s) => {
      const l = s.requests?.latency;
      if (!l) return [];
      const buckets = l.bounds.map((le, i) => ({ labels: { route, le: String(le) }, value: l.counts[i]!, metricName: 'bridge_http_request_duration_seconds_bucket' }));
      return [
        ...buckets,
        { labels: { route, le: '+Inf' }, value: l.count, metricName: 'bridge_http_request_duration_seconds_bucket' },
        { labels: { route }, value: l.sum, metricName: 'bridge_http_request_duration_seconds_sum' },
        { labels: { route }, value: l.count, metricName: 'bridge_http_request_duration_seconds_count' },
      ];
    },
  },
];

/** The routes a process runs, by name, as metrics and readiness see them. */
export class RouteMetrics {
  private readonly hubs = new Map<string, StatsHub>();

  add(route: string, hub: StatsHub): void {
    this.hubs.set(route, hub);
  }

  /** Metric objects prom-client's registry formats (each computes its values when scraped). */
  families(): { name: string; help: string; type: string; get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }> }[] {
    return FAMILIES.map((f) => ({
      name: f.name,
      help: f.help,
      type: f.type,
      get: async () => ({ name: f.name, help: f.help, type: f.type, aggregator: 'sum', values: [...this.hubs].flatMap(([route, hub]) => f.samples(route, hub.snapshot())) }),
    }));
  }

  /**
   * Ready = every route has connected and none is retrying or failed (a finished copy counts as
   * ready: it did its work). Not ready before the first route registered.
   */
  readiness(): { ready: boolean; routes: Record<string, string> } {
    const routes = Object.fromEntries([...this.hubs].map(([name, hub]) => [name, hub.state]));
    const states = Object.values(routes);
    return { ready: states.length > 0 && states.every((s) => s === 'running' || s === 'waiting' || s === 'done' || s === 'stopping'), routes };
  }
}
