import type { PoolStats } from '../core/route.js';
import type { StatsSnapshot } from '../stats/hub.js';

/** 1234567 → "1,234,567" (toLocaleString's first call loads ICU's number formatter: ~9 ms of every start). */
export const num = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export function bytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function duration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export const pool = (p: PoolStats | undefined): string => (p ? `${p.inUse} in use/${p.idle} idle/${p.waiting} waiting of ${p.max}` : '-');

export const elapsedMs = (s: StatsSnapshot): number => Math.max(1, s.now - s.startedAt);

export const rate = (s: StatsSnapshot): number => (s.rowsWritten * 1000) / elapsedMs(s);
