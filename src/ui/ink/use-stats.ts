import { useEffect, useState } from 'react';
import type { StatsHub, StatsSnapshot } from '../../stats/hub.js';

export interface LiveStats {
  snap: StatsSnapshot;
  /** Rows per second over the last sampling interval. */
  rateNow: number;
  /** Requests per second over the last sampling interval (serve). */
  requestsNow: number;
}

/** Samples the hub on a timer: thousands of rows a second become a few renders a second. */
export function useStats(hub: StatsHub, everyMs = 250): LiveStats {
  const [live, setLive] = useState<LiveStats>(() => ({ snap: hub.snapshot(), rateNow: 0, requestsNow: 0 }));
  useEffect(() => {
    let prev = hub.snapshot();
    const t = setInterval(() => {
      const snap = hub.snapshot();
      const dt = Math.max(1, snap.now - prev.now) / 1000;
      setLive({
        snap,
        rateNow: (snap.rowsWritten - prev.rowsWritten) / dt,
        requestsNow: ((snap.requests?.requests ?? 0) - (prev.requests?.requests ?? 0)) / dt,
      });
      prev = snap;
    }, everyMs);
    return () => clearInterval(t);
  }, [hub, everyMs]);
  return live;
}

/** Warning lines as they come, for the scrolling area above the live view. */
export function useWarnings(hub: StatsHub): string[] {
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => {
    const onWarn = (t: string): void => setLines((l) => [...l, `warning: ${t}`]);
    const onInfo = (t: string): void => setLines((l) => [...l, t]);
    hub.on('warning', onWarn);
    hub.on('info', onInfo);
    return () => {
      hub.off('warning', onWarn);
      hub.off('info', onInfo);
    };
  }, [hub]);
  return lines;
}
