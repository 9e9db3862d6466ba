import { execa, type ResultPromise } from 'execa';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/bridge.js');

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as users do; never throws on a non-zero exit. */
export async function bridge(args: string[], opts: { input?: string | Uint8Array; cwd?: string; env?: Record<string, string>; timeout?: number } = {}): Promise<RunResult> {
  const r = await execa('node', [BIN, ...args], {
    reject: false,
    cwd: opts.cwd ?? ROOT,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' }),
    env: { NO_COLOR: '1', ...opts.env },
    timeout: opts.timeout ?? 120_000,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Starts the CLI in the background (tail tests); the caller kills or signals it. */
export function spawnBridge(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): ResultPromise {
  return execa('node', [BIN, ...args], { reject: false, cwd: opts.cwd ?? ROOT, stdin: 'ignore', env: { NO_COLOR: '1', ...opts.env }, buffer: true });
}

/**
 * Resolves once a spawned bridge catches stop signals (its first line sets the process title): a
 * signal sent before that kills it before any of its code runs, as it would any program.
 */
export async function started(p: ResultPromise): Promise<void> {
  await waitFor(async () => {
    try {
      return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').startsWith('bridge');
    } catch {
      return p.exitCode !== null;
    }
  }, 10_000, 2);
}

export function tempDir(prefix = 'bridge-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

export const parseLines = (text: string): unknown[] => lines(text).map((l) => JSON.parse(l) as unknown);

/**
 * The whole lines of an NDJSON file another process may be writing right now: a reader can see
 * a write half done, so the bytes after the last newline are left for the next read.
 */
export function readWholeLines(file: string): unknown[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return parseLines(text.slice(0, text.lastIndexOf('\n') + 1));
}

export async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Writes `rows` as NDJSON into `dir`/`name` and returns its file:// URL. */
export function writeNdjson(dir: string, name: string, rows: unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return `file://${file}`;
}
