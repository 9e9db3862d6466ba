import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { validateDatabaseEndpoint } from '../../src/connectors/sql/validate.js';
import { BridgeError } from '../../src/core/errors.js';
import { BIN } from '../helpers/bridge.js';
import { record } from './report.js';

/** Issue 7, bad input: generated endpoint strings only ever give config errors — no crash, no hang. */
let seed = 42;
const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const SCHEMES = ['postgres://', 'mysql://', 'mariadb://', 'sqlite://', 'sqlite::memory:', 'sqlserver://', 'http://', 'https://', 'file://', '-', 'ftp://', '', 'postgres:', '://'];
const FIELDS = ['table', 'cursor_column', 'cursor_id', 'checkpoint_store', 'tls', 'max_connections', 'timestamps', 'delete_after_read', 'select_query', 'insert_query', 'columns', 'key', 'basic_auth', 'custom_headers', 'method', 'workers', 'compression', 'polling_interval_ms', 'publication', 'bogus', 'cursor_colum', '%ff', 'a=b'];
const VALUES = [
  'x',
  '',
  '0',
  '-1',
  '99999999999999999999999',
  'true',
  'maybe',
  '{"required":true}',
  '{"required":"yes"}',
  '{"x":{"y":[1,2,{}]}}',
  '[1,2',
  '["u","p"]',
  '[]',
  '{}',
  'null',
  '%',
  '%E2%82',
  '%00',
  'ünïcödé',
  '😀'.repeat(50),
  'a'.repeat(10_000),
  "'; DROP TABLE users; --",
  '${payload:}',
  '${payload:a',
  '$1',
  'tbl"quote',
  'a.b.c',
];

function randomBytesString(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(Math.floor(rnd() * 0x3000));
  return s;
}

function generate(): string {
  const r = rnd();
  if (r < 0.1) return randomBytesString(Math.floor(rnd() * 200));
  let s = pick(SCHEMES);
  if (rnd() < 0.3) s += `${pick(['u', 'u:p', ':p', '@', 'a@b'])}@`;
  s += pick(['127.0.0.1', 'db:5432', '[::1]:5432', 'h:99999', 'h:abc', '', 'x/y/z', './f.db', '/abs/f.db', 'ip:80/path']);
  const n = Math.floor(rnd() * 5);
  for (let i = 0; i < n; i++) s += `${i === 0 ? '?' : pick(['&', '&&', '?'])}${pick(FIELDS)}${pick(['=', '', '=='])}${rnd() < 0.5 ? encodeURIComponent(pick(VALUES)) : pick(VALUES)}`;
  return s;
}

describe('the URL and field parser under fuzzing', () => {
  it('100k generated endpoints: only config errors, never another exception', () => {
    const count = Number(process.env.BRIDGE_FUZZ_COUNT ?? 100_000);
    let errors = 0;
    let accepted = 0;
    const started = Date.now();
    for (let i = 0; i < count; i++) {
      const text = generate();
      for (const role of ['consumer', 'publisher'] as const) {
        const t0 = Date.now();
        try {
          const ep = resolveEndpoint(text, role, specForScheme);
          if (ep.spec.name === 'database') validateDatabaseEndpoint(ep);
          accepted++;
        } catch (e) {
          if (!(e instanceof BridgeError) || e.kind !== 'config') throw new Error(`input ${JSON.stringify(text)} (${role}) threw ${String(e)}`);
          errors++;
        }
        expect(Date.now() - t0).toBeLessThan(1000);
      }
    }
    record({ scenario: `fuzz: ${count.toLocaleString('en-US')} generated endpoints × 2 roles`, runs: count * 2, lost: 0, duplicates: 0, outcome: `${errors} config errors, ${accepted} accepted, no other exception, ${Date.now() - started} ms` });
    expect(errors + accepted).toBe(count * 2);
  });

  it('through the binary: bad endpoints exit 2 with one error line', () => {
    for (let i = 0; i < 40; i++) {
      const text = generate();
      let code = 0;
      let stderr = '';
      try {
        execFileSync('node', [BIN, 'copy', text, 'sqlite::memory:?table=t', '--dry-run'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
      } catch (e) {
        code = (e as { status: number }).status;
        stderr = String((e as { stderr: string }).stderr);
      }
      if (code !== 0) {
        expect({ text, code }).toMatchObject({ code: expect.any(Number) });
        expect([2, 3]).toContain(code);
        expect(stderr.split('\n').filter((l) => l.startsWith('bridge: error:'))).toHaveLength(1);
        expect(stderr).not.toMatch(/this is a bug/);
      }
    }
  });
});
