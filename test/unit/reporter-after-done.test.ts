import { afterEach, describe, expect, it, vi } from 'vitest';
import { StatsHub } from '../../src/stats/hub.js';
import { JsonReporter, PlainReporter, type Reporter } from '../../src/ui/reporter.js';

/**
 * A tail stopped by SIGTERM: the route is done, then its source and sinks close (which takes a
 * while), then the summary prints. A progress tick in between once printed
 * "100.0% of ~3,000, … done": the source no longer says caught up, so the passed estimate showed.
 * The progress lines end when the route does; the summary is what follows.
 */
const written: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  written.length = 0;
});

async function tailStoppedWhileClosing(reporter: Reporter): Promise<string[]> {
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  const hub = new StatsHub();
  hub.command = 'tail';
  hub.estimatedRows = 3000;
  hub.rowsRead = hub.rowsWritten = 3000;
  let open = true;
  hub.sourceCaughtUp = () => open;
  hub.setState('running');
  reporter.start(hub);
  await new Promise((r) => setTimeout(r, 60));
  hub.setState('done');
  open = false;
  const closedAt = written.length;
  await new Promise((r) => setTimeout(r, 60));
  reporter.finish(hub.snapshot(), { ok: true, exitCode: 0, stopped: true });
  return written.slice(closedAt);
}

describe('a tail stopped while its source and sinks close', () => {
  it('plain: no progress line after the route is done, and none shows a percentage of the passed estimate', async () => {
    const after = await tailStoppedWhileClosing(new PlainReporter({ quiet: false, progress: true, intervalMs: 10 }));
    expect(written.some((l) => l.includes('caught up, waiting for new rows'))).toBe(true);
    expect(written.join('')).not.toMatch(/% of ~/);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatch(/^bridge tail: stopped: 3,000 rows/);
  });

  it('json: the last progress object says caught up; the summary follows it', async () => {
    const after = await tailStoppedWhileClosing(new JsonReporter({ quiet: false, intervalMs: 10 }));
    const objs = written.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objs.filter((o) => o.type === 'progress').pop()).toMatchObject({ caught_up: true, rows: 3000 });
    expect(after.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['summary']);
  });
});
