import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { rowRenderer } from '../../src/connectors/sql/values/render.js';
import { validateDatabaseEndpoint } from '../../src/connectors/sql/validate.js';
import { SqlServerDialect } from '../../src/connectors/sqlserver/dialect.js';
import { classifyMssql, mssqlConfig, parameterType } from '../../src/connectors/sqlserver/driver.js';
import { mssqlType, selectExpression, tediousType } from '../../src/connectors/sqlserver/types.js';
import { BridgeError } from '../../src/core/errors.js';

/** SQL Server (issue 8): everything that runs without a server. */
const d = new SqlServerDialect();
const ep = (url: string, role: 'consumer' | 'publisher' = 'consumer') => resolveEndpoint(url, role, specForScheme);

describe('SQL Server SQL', () => {
  it('quotes with brackets, binds @pN, pages with OFFSET/FETCH and locks with UPDLOCK/READPAST', () => {
    expect(d.table('dbo.events')).toBe('[dbo].[events]');
    expect(d.quote('ev]ents')).toBe('[ev]]ents]');
    expect(d.param(3)).toBe('@p3');
    expect(d.limit(1024)).toBe(' OFFSET 0 ROWS FETCH NEXT 1024 ROWS ONLY');
    expect(d.lockHint).toBe(' WITH (UPDLOCK, READPAST, ROWLOCK)');
    expect(d.leaseUntil(60)).toBe('DATEADD(second, 60, SYSUTCDATETIME())');
  });

  it('keyset paging without row values; decimals compared as decimals; integers inlined exactly', () => {
    const params: unknown[] = [];
    const cols = [
      { name: 'a', type: 'bigint' as const, dbType: 'bigint', nullable: false },
      { name: 'b', type: 'decimal' as const, dbType: 'decimal(10,2)', nullable: false },
    ];
    expect(d.keysetAfter(cols, ['9007199254740993', '1.50'], params)).toBe('(([a] > 9007199254740993) OR ([a] = 9007199254740993 AND [b] > CAST(@p1 AS decimal(38,10))))');
    expect(params).toEqual(['1.50']);
  });

  it('upserts are MERGE … WITH (HOLDLOCK), safe under concurrency; plain inserts stay INSERT', () => {
    expect(d.insertRows('[t]', ['id', 'v'], ['(@p1,@p2)', '(@p3,@p4)'], ['id'], ['v'])).toBe(
      'MERGE INTO [t] WITH (HOLDLOCK) AS t USING (VALUES (@p1,@p2),(@p3,@p4)) AS s ([id], [v]) ON t.[id] = s.[id] WHEN MATCHED THEN UPDATE SET [v] = s.[v] WHEN NOT MATCHED THEN INSERT ([id], [v]) VALUES (s.[id], s.[v]);',
    );
    expect(d.insertRows('[t]', ['v'], ['(@p1)'])).toBe('INSERT INTO [t] ([v]) VALUES (@p1)');
  });

  it('queue and checkpoint tables are created only when missing, under an application lock', () => {
    const [create, index] = d.createQueueTable('jobs');
    expect(create).toMatch(/^IF OBJECT_ID\(N'\[dbo\]\.\[jobs\]', N'U'\) IS NULL CREATE TABLE \[jobs\] \(id BIGINT IDENTITY\(1,1\) PRIMARY KEY, payload VARBINARY\(MAX\) NOT NULL, locked_until DATETIME2 NULL/);
    expect(index).toMatch(/CREATE INDEX \[jobs_locked_until_idx\] ON \[jobs\] \(locked_until\)/);
    expect(d.ddlLock('jobs')).toBe("EXEC sp_getapplock @Resource = N'bridge:jobs', @LockMode = 'Exclusive', @LockOwner = 'Transaction'");
    expect(d.upsertCheckpoint('bridge_cursors_jobs')).toMatch(/^MERGE INTO \[bridge_cursors_jobs\] WITH \(HOLDLOCK\)/);
  });
});

describe('SQL Server values (decisions §4)', () => {
  it('reads decimals, datetime2 (7 digits), time, uniqueidentifier as text so nothing is rounded', () => {
    expect(selectExpression('[amount]', 'decimal')).toBe('CONVERT(varchar(64), [amount]) AS [amount]');
    expect(selectExpression('[at]', 'datetime2')).toBe('CONVERT(varchar(27), [at], 121) AS [at]');
    expect(selectExpression('[u]', 'uniqueidentifier')).toBe('LOWER(CONVERT(varchar(36), [u])) AS [u]');
    expect(selectExpression('[n]', 'nvarchar')).toBe('[n]');
  });

  it('maps types and renders a row as the other kinds do', () => {
    expect(['bit', 'int', 'bigint', 'decimal', 'money', 'float', 'datetime2', 'datetimeoffset', 'uniqueidentifier', 'varbinary', 'nvarchar'].map(mssqlType)).toEqual([
      'bool',
      'int',
      'bigint',
      'decimal',
      'decimal',
      'float',
      'timestamp',
      'timestamptz',
      'uuid',
      'bytes',
      'text',
    ]);
    expect(tediousType('IntN')).toBe('int');
    const render = rowRenderer(
      [
        { name: 'id', type: 'bigint' },
        { name: 'amount', type: 'decimal' },
        { name: 'at', type: 'timestamp' },
        { name: 'u', type: 'uuid' },
        { name: 'flag', type: 'bool' },
        { name: 'raw', type: 'bytes' },
      ],
      { timestamps: 'text' },
    );
    // What tedious hands over for the select list above: bigint as a string, the CONVERTed text, a boolean, a Buffer.
    expect(render(['9007199254740993', '12345678901234567890.1234567890', '2024-01-02 03:04:05.1234567', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', true, Buffer.from([0, 255])])).toBe(
      '{"id":"9007199254740993","amount":"12345678901234567890.1234567890","at":"2024-01-02 03:04:05.1234567","u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","flag":true,"raw":"AP8="}',
    );
  });

  it('parameters: text as NVARCHAR (converted exactly by the server), bytes as VARBINARY(MAX), booleans as BIT', async () => {
    const { TYPES } = (await import('tedious')).default;
    expect(parameterType(TYPES, '12.30').type).toBe(TYPES.NVarChar);
    expect(parameterType(TYPES, Buffer.from('x'))).toMatchObject({ type: TYPES.VarBinary, options: { length: Infinity } });
    expect(parameterType(TYPES, true).type).toBe(TYPES.Bit);
    expect(parameterType(TYPES, 42n)).toEqual({ type: TYPES.BigInt, value: '42' });
    expect(parameterType(TYPES, null)).toEqual({ type: TYPES.NVarChar, value: null });
  });
});

describe('SQL Server configuration', () => {
  it('tls: encrypt with tls.required, trust the certificate only with accept_invalid_certs, a CA file', () => {
    const warnings: string[] = [];
    const c = mssqlConfig(ep('sqlserver://sa:Secret123@db:1433/shop?table=t&tls={"required":true,"accept_invalid_certs":true}&instanceName=SQL2022'), (w) => warnings.push(w));
    expect(c).toMatchObject({ server: 'db', authentication: { options: { userName: 'sa', password: 'Secret123' } }, options: { database: 'shop', port: 1433, encrypt: true, trustServerCertificate: true, instanceName: 'SQL2022' } });
    expect(warnings[0]).toMatch(/accept_invalid_certs/);
    const strict = mssqlConfig(ep('mssql://u:p@db/shop?table=t&tls={"required":true}'), () => {});
    expect(strict).toMatchObject({ options: { encrypt: true, trustServerCertificate: false } });
    expect(() => mssqlConfig(ep('sqlserver://db/x?table=t&bogus=1'), () => {})).toThrow(/bogus is neither a field of the sqlserver connector nor a tedious connection option/);
  });

  it('select_query needs @p1; bulk_copy stays PostgreSQL-only', () => {
    expect(() => validateDatabaseEndpoint(ep('sqlserver://db/x?table=t&select_query=SELECT TOP 10 * FROM t'))).toThrow(/select_query must contain the batch-size placeholder @p1/);
    expect(() => validateDatabaseEndpoint(ep('sqlserver://db/x?table=t&select_query=SELECT TOP (@p1) * FROM t WITH (READPAST)'))).not.toThrow();
    expect(() => ep('sqlserver://db/x?table=t&bulk_copy=true', 'publisher')).toThrow(/bulk_copy is not supported on sqlserver/);
  });

  it('classifies server errors: login → cannot connect, deadlock → retry, constraint → rejection', () => {
    const kind = (e: object) => (classifyMssql(Object.assign(new Error('x'), e)) as BridgeError).kind;
    expect(kind({ code: 'ELOGIN' })).toBe('connect');
    expect(kind({ code: 'ESOCKET' })).toBe('transient');
    expect(kind({ number: 1205 })).toBe('transient');
    expect(kind({ number: 2627 })).toBe('rejected');
    expect(kind({ number: 8114 })).toBe('rejected');
  });

  it('exactly once (issue 28): the position table is made only if missing; one row is read with TOP, not LIMIT', () => {
    expect(d.createPositionTable('dbo.bridge_positions')).toEqual([
      "IF OBJECT_ID(N'[dbo].[bridge_positions]', N'U') IS NULL CREATE TABLE [dbo].[bridge_positions] (route NVARCHAR(255) NOT NULL PRIMARY KEY, last_position NVARCHAR(MAX) NOT NULL, seq BIGINT NOT NULL, updated_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME())",
    ]);
    expect(d.anyRow('dbo.events')).toBe('SELECT TOP 1 1 FROM [dbo].[events]');
    // No one-round-trip form: the position goes through BEGIN TRANSACTION … COMMIT.
    expect(d.inlinePosition).toBeUndefined();
  });
});
