import { Box, Static, Text } from 'ink';
import { useRef } from 'react';
import type { StatsSnapshot } from '../../stats/hub.js';
import { duration, elapsedMs, num, rate as average } from '../format.js';

/** One route of a run of several, as the board shows it. */
export interface BoardRow {
  name: string;
  snap: StatsSnapshot | undefined;
  /** Set once the route finished: its exit code. */
  code?: number;
}

const color = (c: string): string | undefined => (process.env.NO_COLOR ? undefined : c);
const fit = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));

function stateText(r: BoardRow): [string, string | undefined] {
  const s = r.snap;
  if (!s) return ['waiting to start', undefined];
  if (r.code !== undefined && r.code !== 0) return [`failed (exit ${r.code})`, 'red'];
  if (s.caughtUp && s.state === 'running') return ['caught up', 'green'];
  return [s.state, s.state === 'running' || s.state === 'done' ? 'green' : s.state === 'failed' ? 'red' : 'yellow'];
}

/**
 * Several routes (a table list, a route file): one row each — name, state, rows, rows/s now,
 * position — under the lines they printed. Renders what it is given; starts and stops nothing.
 */
export function BoardView({ rows, lines, title }: { rows: BoardRow[]; lines: string[]; title: string }) {
  // Rows per second now: against the previous frame's count of each route.
  const prev = useRef(new Map<string, { rows: number; at: number }>());
  const width = Math.min(40, Math.max(8, ...rows.map((r) => r.name.length)));
  const done = rows.filter((r) => r.code !== undefined).length;
  const total = rows.reduce((n, r) => n + (r.snap?.rowsWritten ?? 0), 0);
  return (
    <>
      <Static items={lines.map((l, i) => ({ l, i }))}>{({ l, i }) => <Text key={i} color={/: (warning|error): /.test(l) ? color('yellow') : undefined}>{l}</Text>}</Static>
      <Box flexDirection="column" borderStyle="round" borderColor={color('cyan')} paddingX={1}>
        <Text>
          <Text bold>bridge {title}</Text> <Text dimColor>{rows.length} routes · {done} finished · {num(total)} rows</Text>
        </Text>
        {rows.map((r) => {
          const s = r.snap;
          const before = prev.current.get(r.name);
          const now = s ? { rows: s.rowsWritten, at: s.now } : undefined;
          // A finished route shows its average; a running one its rate over the last frame.
          const rate = s && r.code !== undefined ? average(s) : s && before && now!.at > before.at ? ((now!.rows - before.rows) * 1000) / (now!.at - before.at) : 0;
          if (now) prev.current.set(r.name, now);
          const [state, c] = stateText(r);
          return (
            <Text key={r.name}>
              <Text bold>{fit(r.name, width)}</Text> <Text color={c ? color(c) : undefined}>{fit(state, 16)}</Text> {s ? `${num(s.rowsWritten).padStart(12)} rows ${num(rate).padStart(9)}/s  ${duration(elapsedMs(s)).padStart(6)}${s.position ? `  at ${s.position.length > 28 ? `${s.position.slice(0, 27)}…` : s.position}` : ''}${s.deadLettered ? `  dead-lettered ${num(s.deadLettered)}` : ''}` : ''}
            </Text>
          );
        })}
      </Box>
    </>
  );
}
