import { Box, Static, Text } from 'ink';
import type { PoolStats } from '../../core/route.js';
import { progressRatio, type StatsHub, type StatsSnapshot } from '../../stats/hub.js';
import { bytes, duration, elapsedMs, num, rate } from '../format.js';
import { useStats, useWarnings } from './use-stats.js';

const color = (c: string): string | undefined => (process.env.NO_COLOR ? undefined : c);

function Bar({ ratio, width = 30 }: { ratio: number; width?: number }) {
  const full = Math.round(Math.max(0, Math.min(1, ratio)) * width);
  return (
    <Text>
      <Text color={color('green')}>{'█'.repeat(full)}</Text>
      <Text dimColor>{'░'.repeat(width - full)}</Text>
    </Text>
  );
}

function Pool({ label, p }: { label: string; p: PoolStats | undefined }) {
  if (!p) return null;
  return (
    <Text>
      {label} pool <Text bold>{p.inUse}</Text> in use / {p.idle} idle / {p.waiting > 0 ? <Text color={color('yellow')}>{p.waiting} waiting</Text> : '0 waiting'} of {p.max}
    </Text>
  );
}

/** The live view: renders what the stats hub says; it starts and stops nothing. */
export function LiveView({ hub, final }: { hub: StatsHub; final?: StatsSnapshot }) {
  const live = useStats(hub);
  // The last frame shows the final figures (state done/failed), not the last sample.
  const s = final ?? live.snap;
  const { rateNow, requestsNow } = live;
  const warnings = useWarnings(hub);
  const est = s.estimatedRows;
  const ratio = progressRatio(s);
  const avg = rate(s);
  const etaMs = est && avg > 0 && s.rowsWritten < est && s.state === 'running' ? ((est - s.rowsWritten) / avg) * 1000 : undefined;
  return (
    <>
      <Static items={warnings.map((w, i) => ({ w, i }))}>{({ w, i }) => <Text key={i} color={w.startsWith('warning') ? color('yellow') : undefined}>{`bridge: ${w}`}</Text>}</Static>
      <Box flexDirection="column" borderStyle="round" borderColor={color('cyan')} paddingX={1}>
        <Text>
          <Text bold>bridge {s.command}</Text> <Text dimColor>{s.mode}</Text> <Text color={s.state === 'running' ? color('green') : color('yellow')}>[{s.caughtUp ? 'caught up, waiting for new rows' : s.state}]</Text>
        </Text>
        <Text dimColor>from {s.source}</Text>
        <Text dimColor>to   {s.sink}</Text>
        <Text>
          <Text bold>{num(s.rowsWritten)}</Text> rows · {bytes(s.bytesWritten)} · <Text bold>{num(rateNow)}</Text> rows/s now · {num(avg)} avg · {duration(elapsedMs(s))}
        </Text>
        {ratio !== undefined && (
          <Text>
            <Bar ratio={ratio} /> {(Math.min(1, ratio) * 100).toFixed(1)}% of ~{num(est!)}
            {etaMs !== undefined ? ` · ETA ${duration(etaMs)}` : ''}
          </Text>
        )}
        {s.position !== undefined && <Text>position {s.position}</Text>}
        {s.slotLagBytes !== undefined && <Text>slot lag {bytes(s.slotLagBytes)}</Text>}
        {s.checkpoint !== undefined && <Text dimColor>checkpoint {s.checkpoint}</Text>}
        {s.requests && (
          <Text>
            {num(s.requests.requests)} requests · {num(requestsNow)}/s ·{' '}
            {Object.entries(s.requests.statuses)
              .map(([k, v]) => `${k}: ${num(v)}`)
              .join('  ') || 'none answered yet'}
          </Text>
        )}
        <Pool label="source" p={s.sourcePool} />
        <Pool label="sink" p={s.sinkPool} />
        <Text>
          in flight {s.inFlight} · batch retries {s.retries > 0 ? <Text color={color('yellow')}>{s.retries}</Text> : 0} · dead-lettered {s.deadLettered > 0 ? <Text color={color('red')}>{s.deadLettered}</Text> : 0}
          {s.dropped > 0 ? ` · fields dropped ${num(s.dropped)}` : ''}
          {s.lossy > 0 ? ` · lossy values ${num(s.lossy)}` : ''}
        </Text>
        {s.waitingOn !== undefined && <Text color={color('yellow')}>waiting on {s.waitingOn}</Text>}
        {s.lastError !== undefined && s.state === 'retrying' && <Text color={color('yellow')}>last error: {s.lastError}</Text>}
      </Box>
    </>
  );
}
