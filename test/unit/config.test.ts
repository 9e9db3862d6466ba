import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { redact } from '../../src/config/redact.js';
import { suggest } from '../../src/config/suggest.js';
import { parseUrl } from '../../src/config/url.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { BridgeError } from '../../src/core/errors.js';

const resolve = (url: string, role: 'consumer' | 'publisher' = 'consumer', overrides: [string, string][] = []) => resolveEndpoint(url, role, specForScheme, overrides);

function configErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BridgeError);
    expect((e as BridgeError).exitCode).toBe(2);
    return (e as Error).message;
  }
  throw new Error('expected a config error');
}

describe('endpoint URLs', () => {
  it('parses userinfo, IPv6 hosts, ports and keeps + and unencoded SQL in values', () => {
    const u = parseUrl('postgres://app:p%40ss@[::1]:6543/prod?table=orders&insert_query=INSERT INTO t (a) VALUES (${payload:a} + 1)');
    expect(u).toMatchObject({ scheme: 'postgres', username: 'app', password: 'p@ss', host: '::1', port: 6543, path: 'prod' });
    expect(u.query).toEqual([
      ['table', 'orders'],
      ['insert_query', 'INSERT INTO t (a) VALUES (${payload:a} + 1)'],
    ]);
  });

  it('fills defaults from the schema and types every field', () => {
    const ep = resolve('postgres://db/app?table=events&cursor_column=id&polling_interval_ms=250&tls={"required":true,"accept_invalid_certs":"true"}');
    expect(ep.kind).toBe('postgres');
    expect(ep.fields).toMatchObject({ table: 'events', cursor_column: 'id', polling_interval_ms: 250, max_connections: 10, acquire_timeout_ms: 30000, shared: true, timestamps: 'text' });
    expect(ep.fields.tls).toEqual({ required: true, accept_invalid_certs: true });
  });

  it('sqlite paths: relative, absolute and in-memory', () => {
    expect(resolve('sqlite://./a/b.db?table=t').file).toMatch(/\/a\/b\.db$/);
    expect(resolve('sqlite:///var/x.db?table=t').file).toBe('/var/x.db');
    expect(resolve('sqlite::memory:?table=t').file).toBe(':memory:');
  });

  it('passes unknown keys to the driver, but a typo of a field is a config error (in cron it would re-copy everything)', () => {
    const ep = resolve('postgres://db/app?table=t&application_name=x');
    expect(ep.passthrough).toEqual([['application_name', 'x']]);
    expect(ep.warnings).toEqual([]);
    expect(configErrorOf(() => resolve('postgres://db/app?table=t&cursor_colum=id'))).toMatch(/cursor_colum is not a field of the postgres source \(did you mean cursor_column\?\)/);
  });

  it('flags override the query and are checked like it', () => {
    expect(resolve('postgres://db/app?table=t&cursor_column=a', 'consumer', [['cursor_column', 'b']]).fields.cursor_column).toBe('b');
    expect(configErrorOf(() => resolve('postgres://db/app?table=t', 'consumer', [['cursor_colum', 'b']]))).toMatch(/cursor_colum is not a field .*did you mean cursor_column\?/);
  });

  it('rejects a field given twice, a wrong role, a planned field, a bad value', () => {
    expect(configErrorOf(() => resolve('postgres://db/app?table=t&table=u'))).toMatch(/table is given twice/);
    expect(configErrorOf(() => resolve('postgres://db/app?table=t&auto_create_table=true'))).toMatch(/auto_create_table is a sink \(publisher\) field/);
    const planned = { name: 'x', description: '', schemes: { x: 'x' }, fields: [{ name: 'later', type: 'string' as const, roles: ['consumer' as const], description: '', planned: 'a later version' }] };
    expect(configErrorOf(() => resolveEndpoint('x://h/p?later=1', 'consumer', () => planned))).toMatch(/later is not implemented yet in this version of bridge \(a later version\)/);
    expect(configErrorOf(() => resolve('postgres://db/app?table=t&max_connections=0'))).toMatch(/max_connections must be at least 1/);
    expect(configErrorOf(() => resolve('postgres://db/app?table=t&shared=maybe'))).toMatch(/shared must be true or false/);
  });

  it('masks userinfo and secret fields in the displayed URL and in any text', () => {
    const ep = resolve('mysql://root:hunter22@db:3306/shop?table=t&password=0therSecret&cursor_column=id&cursor_id=c&checkpoint_store=file:///x/y.json');
    expect(ep.display).toBe('mysql://***@db:3306/shop?table=t&password=***&cursor_column=id&cursor_id=c&checkpoint_store=***');
    expect(redact('failed for hunter22 and 0therSecret in file:///x/y.json')).toBe('failed for *** and *** in ***');
  });
});

describe('did you mean', () => {
  it('finds names one edit, one swap, or case/dashes away', () => {
    const names = ['cursor_column', 'cursor_id', 'table'];
    expect(suggest('cursor_colum', names)).toBe('cursor_column');
    expect(suggest('cursor_cloumn', names)).toBe('cursor_column');
    expect(suggest('Cursor-Column', names)).toBe('cursor_column');
    expect(suggest('tabel', names)).toBe('table');
    expect(suggest('sslmode', names)).toBeUndefined();
  });
});
