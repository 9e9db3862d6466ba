import { describe, expect, it } from 'vitest';
import { MysqlDialect } from '../../src/connectors/mysql/dialect.js';
import { PostgresDialect } from '../../src/connectors/postgres/dialect.js';
import { Frontier } from '../../src/connectors/sql/position/cursor-frontier.js';
import { CursorQuery } from '../../src/connectors/sql/position/cursor-query.js';

const col = (name: string, type: 'bigint' | 'timestamp') => ({ name, type, dbType: type, nullable: false });

describe('cursor frontier', () => {
  const follow = (open: Set<string>) => (m: string) => (open.has(m) ? m : undefined);

  it('a window closes only once every transaction open after its read has ended', () => {
    const f = new Frontier(undefined, 0);
    f.read({ value: '10' }, ['1', '2'], 0);
    f.observe(new Set(['tx-a', 'tx-b']), 0);
    expect(f.closable(follow(new Set(['tx-b'])), 1)).toBeUndefined();
    expect(f.frontier).toBeUndefined();
    expect(f.closable(follow(new Set(['tx-c'])), 2)).toEqual({ value: '10' });
  });

  it('a window not yet observed cannot close, and a later listing observes every pending window', () => {
    const f = new Frontier({ value: '0' }, 0);
    f.read({ value: '5' }, ['a'], 0);
    f.read({ value: '9' }, ['b'], 0);
    expect(f.closable(follow(new Set()), 1)).toBeUndefined();
    f.observe(new Set(), 1);
    expect(f.closable(follow(new Set()), 1)).toEqual({ value: '9' });
  });

  it('a gapless read of a unique integer cursor moves the frontier at once; a gap, an open window or the start does not', () => {
    const f = new Frontier({ value: '10' }, 0);
    expect(f.readDense({ value: '13' }, ['11', '12', '13'])).toBe(true);
    expect(f.frontier).toEqual({ value: '13' });
    expect(f.readDense({ value: '17' }, ['14', '15', '17'])).toBe(false);
    expect(f.readDense({ value: '16' }, ['15', '16'])).toBe(false);
    expect(f.frontier).toEqual({ value: '13' });
    f.read({ value: '17' }, ['14', '15', '17'], 0);
    expect(f.readDense({ value: '19' }, ['18', '19'])).toBe(false);
    expect(f.pending).toBe(1);
    expect(new Frontier(undefined, 0).readDense({ value: '2' }, ['1', '2'])).toBe(false);
    // SQLite INT PRIMARY KEY (not the rowid) may hold other values: no shortcut, no exception.
    const loose = new Frontier({ value: '0' }, 0);
    expect(loose.readDense({ value: '3' }, ['1', '1.5', '3'])).toBe(false);
    expect(loose.readDense({ value: 'x' }, ['1', 'x'])).toBe(false);
    expect(new Frontier({ value: '0.5' }, 0).readDense({ value: '1' }, ['1'])).toBe(false);
    const big = new Frontier({ value: '9223372036854775805' }, 0);
    expect(big.readDense({ value: '9223372036854775807' }, ['9223372036854775806', '9223372036854775807'])).toBe(true);
  });

  it('aliases (~name) are matched but never noted', () => {
    const f = new Frontier(undefined, 0);
    f.read({ value: '1' }, ['x'], 0);
    f.observe(new Set(['id:7', '~s:3:12']), 0);
    expect(f.blockers()).toEqual(['id:7']);
  });

  it('missing() counts equal rows of a table without a key, and close() forgets what is below the frontier', () => {
    const f = new Frontier(undefined, 0);
    f.read({ value: '1' }, ['same', 'other'], 0);
    expect(f.missing(['same', 'same', 'other', 'late'])).toEqual(['same', 'late']);
    f.observe(new Set(), 0);
    f.close(f.closable(follow(new Set()), 0)!);
    expect(f.above).toBe(0);
  });

  it('cursor_lag_ms keeps a window open that long', () => {
    const f = new Frontier(undefined, 500);
    f.read({ value: '1' }, ['a'], 1000);
    f.observe(new Set(), 1000);
    expect(f.closable(follow(new Set()), 1400)).toBeUndefined();
    expect(f.closable(follow(new Set()), 1500)).toEqual({ value: '1' });
  });
});

describe('cursor query', () => {
  it('a window range binds its parameters in the order of the text (MySQL expands row comparisons)', () => {
    const q = new CursorQuery(new MysqlDialect('mariadb'), col('mtime', 'timestamp'), [col('id', 'bigint')]);
    const params: unknown[] = [];
    const sql = q.between({ value: 'LOW', key: ['1'] }, { value: 'HIGH', key: ['9'] }, params);
    expect(sql).toBe('((`mtime` > ?) OR (`mtime` = ? AND `id` > 1)) AND `mtime` <= ? AND NOT (`mtime` = ? AND (`id` > 9))');
    expect(params).toEqual(['LOW', 'LOW', 'HIGH', 'HIGH']);
  });

  it('a range an index on (cursor, key) bounds at both ends: by the key within one cursor value, by the cursor across values', () => {
    const q = new CursorQuery(new PostgresDialect(), col('mtime', 'timestamp'), [col('id', 'bigint')]);
    const params: unknown[] = [];
    expect(q.between({ value: 'V', key: ['3'] }, { value: 'V', key: ['9'] }, params)).toBe('"mtime" = $1 AND "id" > 3 AND "id" <= 9');
    expect(params).toEqual(['V']);
    const p2: unknown[] = [];
    expect(q.between(undefined, { value: 'HIGH', key: ['9'] }, p2)).toBe('"mtime" IS NOT NULL AND "mtime" <= $1 AND NOT ("mtime" = $2 AND "id" > 9)');
  });
});
