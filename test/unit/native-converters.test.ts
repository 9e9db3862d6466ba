import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MysqlBinder } from '../../src/connectors/mysql/bind.js';
import { PgBinder } from '../../src/connectors/postgres/bind.js';
import { NEED_FIELD, type Binder, type SourceColumn } from '../../src/connectors/sql/values/bind.js';
import { RowShape } from '../../src/connectors/sql/values/row-fields.js';
import type { ColumnInfo, LogicalType } from '../../src/connectors/sql/types.js';
import { SqliteBinder } from '../../src/connectors/sqlite/bind.js';

/**
 * The shortcut that converts a driver's value without building its field (Binder.nativeConverter)
 * must give what the full converter gives, or hand the value over (NEED_FIELD): on integer and
 * text pairs across kinds, edge values and generated ones, in and out of range, NUL included.
 */
const targets: [string, Binder, ColumnInfo][] = [
  ['pg smallint', new PgBinder(), { name: 'c', type: 'int', dbType: 'smallint', nullable: true, min: '-32768', max: '32767' }],
  ['pg integer', new PgBinder(), { name: 'c', type: 'int', dbType: 'integer', nullable: true, min: '-2147483648', max: '2147483647' }],
  ['pg bigint', new PgBinder(), { name: 'c', type: 'bigint', dbType: 'bigint', nullable: true, min: '-9223372036854775808', max: '9223372036854775807' }],
  ['pg text', new PgBinder(), { name: 'c', type: 'text', dbType: 'text', nullable: true }],
  ['mysql year', new MysqlBinder(), { name: 'c', type: 'int', dbType: 'year', nullable: true, min: '0', max: '2155', variant: 'year' } as ColumnInfo],
  ['mysql int unsigned', new MysqlBinder(), { name: 'c', type: 'int', dbType: 'int unsigned', nullable: true, min: '0', max: '4294967295' }],
  ['mysql longtext', new MysqlBinder(), { name: 'c', type: 'text', dbType: 'longtext', nullable: true }],
  ['sqlite INTEGER', new SqliteBinder(), { name: 'c', type: 'bigint', dbType: 'INTEGER', nullable: true, min: '-9223372036854775808', max: '9223372036854775807', affinity: 'integer' } as ColumnInfo],
  ['sqlite TEXT', new SqliteBinder(), { name: 'c', type: 'text', dbType: 'TEXT', nullable: true, affinity: 'text' } as ColumnInfo],
  ['pg jsonb', new PgBinder(), { name: 'c', type: 'json', dbType: 'jsonb', nullable: true, variant: 'jsonb' } as ColumnInfo],
  ['pg json', new PgBinder(), { name: 'c', type: 'json', dbType: 'json', nullable: true } as ColumnInfo],
  ['mysql json', new MysqlBinder(), { name: 'c', type: 'json', dbType: 'json', nullable: true } as ColumnInfo],
  ['pg timestamptz', new PgBinder(), { name: 'c', type: 'timestamptz', dbType: 'timestamp with time zone', nullable: true, fraction: 6 } as ColumnInfo],
  ['pg timestamp(3)', new PgBinder(), { name: 'c', type: 'timestamp', dbType: 'timestamp(3) without time zone', nullable: true, fraction: 3 } as ColumnInfo],
  ['mysql datetime(6)', new MysqlBinder(), { name: 'c', type: 'timestamp', dbType: 'datetime(6)', nullable: true, fraction: 6 } as ColumnInfo],
  ['mysql datetime', new MysqlBinder(), { name: 'c', type: 'timestamp', dbType: 'datetime', nullable: true, fraction: 0 } as ColumnInfo],
  ['sqlite TIMESTAMPTZ', new SqliteBinder(), { name: 'c', type: 'timestamptz', dbType: 'TIMESTAMPTZ', nullable: true, affinity: 'numeric' } as ColumnInfo],
  ['sqlite DATETIME', new SqliteBinder(), { name: 'c', type: 'timestamp', dbType: 'DATETIME', nullable: true, affinity: 'numeric' } as ColumnInfo],
  ['pg numeric(12,2)', new PgBinder(), { name: 'c', type: 'decimal', dbType: 'numeric(12,2)', nullable: true, precision: 12, scale: 2 } as ColumnInfo],
  ['pg numeric(5,0)', new PgBinder(), { name: 'c', type: 'decimal', dbType: 'numeric(5,0)', nullable: true, precision: 5, scale: 0 } as ColumnInfo],
  ['mysql decimal(30,15)', new MysqlBinder(), { name: 'c', type: 'decimal', dbType: 'decimal(30,15)', nullable: true, precision: 30, scale: 15 } as ColumnInfo],
  ['sqlite NUMERIC(10,4)', new SqliteBinder(), { name: 'c', type: 'decimal', dbType: 'NUMERIC(10,4)', nullable: true, precision: 10, scale: 4, affinity: 'numeric' } as ColumnInfo],
];
const sources: [LogicalType, Binder, boolean, boolean?][] = [
  ['int', new MysqlBinder(), false],
  ['bigint', new PgBinder(), false],
  ['text', new MysqlBinder(), false],
  ['uuid', new PgBinder(), false],
  ['timestamp', new MysqlBinder(), false],
  ['float', new MysqlBinder(), false],
  // MySQL/MariaDB DECIMAL: exact text.
  ['decimal', new MysqlBinder(), false],
  // MySQL FLOAT: read widened to a double, written as the 4-byte float's shortest digits.
  ['float', new MysqlBinder(), false, true],
  // SQLite: any storage class in any column.
  ['bigint', new SqliteBinder(), true],
  ['text', new SqliteBinder(), true],
  ['float', new SqliteBinder(), true],
];
/** Where the shortcut leaves the check to the database (its JSON parser): the full converter's refusal, and the text passed on unchanged. */
const serverChecked = (b: Binder, col: ColumnInfo, fullAnswer: string, quick: unknown, v: unknown): boolean =>
  b.serverParsesJson && col.type === 'json' && fullAnswer.startsWith('rejects is text that is not JSON') && quick === v;

function full(b: Binder, col: ColumnInfo, src: SourceColumn, v: unknown, rfc3339: boolean): string {
  const shape = new RowShape([{ name: 'c', type: src.type, floatBits: src.col.floatBits }], { timestamps: rfc3339 ? 'rfc3339' : 'text' }, src.loose, () => '', [src]);
  try {
    return `ok ${String(b.compile(col, src)(shape.field([v], 0), v))}`;
  } catch (e) {
    return `rejects ${(e as Error).message}`;
  }
}

describe('native converters agree with the full converter', () => {
  const values = fc.oneof(
    fc.integer(),
    fc.integer({ min: -70000, max: 70000 }),
    fc.maxSafeInteger(),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
    fc.integer({ min: -5000, max: 5000 }).map(String),
    fc.constantFrom(0, -0, 1.5, 2 ** 53, -(2 ** 53), 4294967296, 2155, 2156, '0', '-0', '007', '1e3', '', 'abc', 'NUL\u0000in', 'é😀', ' 5', '9223372036854775808'),
    fc.string(),
    // Doubles, and the decimals of a few digits they usually hold (amounts: 12.34).
    fc.double(),
    fc.integer({ min: -(10 ** 9), max: 10 ** 9 }).chain((n) => fc.constantFrom(n / 100, n / 10000, n / 1e15, n * 1000)),
    fc.integer({ min: -(10 ** 6), max: 10 ** 6 }).map((n) => Math.fround(n / 10)),
    fc.constantFrom(0.1 + 0.2, 1e-7, Math.fround(1.1), Math.fround(1000.1), 5e-324, 2 ** 52 / 100, 2 ** 52 / 100 + 0.25, 45035996273704.95, 99999.5, 99999.4999, 1e21, 0.005, 0.015, -0.01, 1e15 + 0.3, 9999999999.99, 10000000000, -123456789.125),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
    fc.constantFrom(0n, -1n, 1n, 69n, 70n, 99n, 100n, 1901n, 2155n, 2156n, 2n ** 53n, 2n ** 63n - 1n, -(2n ** 63n), 32767n, 32768n),
    fc.bigInt({ min: -3000n, max: 3000n }),
    // Decimal text as DECIMAL columns give it: zeros leading and trailing, scales past the column's, signs, near misses.
    fc.tuple(fc.constantFrom('', '-', '+'), fc.stringMatching(/^\d{0,14}$/), fc.constantFrom('', '.'), fc.stringMatching(/^\d{0,17}$/)).map(([s, i, dot, f]) => `${s}${i}${dot}${f}`),
    fc.constantFrom('-0.00', '0.00', '000123.4500', '9999999999.99', '10000000000.00', '-9999999999.995', '.5', '5.', '1e3', 'NaN', '-0', '00', '0.0000000000000001'),
    fc.constantFrom('{"a":1}', '[1,2]', '"s"', 'null', '{"a":"\\u0000"}', '{"a":', '{"a":1}{', ' {"a":1} ', '1e400', '{"k":"é😀\\n"}'),
    fc.jsonValue().map((j) => JSON.stringify(j)),
    fc.constantFrom('2024-02-29 23:59:59', '2024-02-29T23:59:59.123456', '2024-01-01 00:00:00.1230000', '2024-01-01 00:00:00.1234567', '2024-01-01 00:00:00.1234', '0000-00-00 00:00:00', '2024-13-01 00:00:00', '2024-01-01 10:00:00+02:00', '2024-01-01 10:00:00Z', '2024-01-01', '10:00:00', '2024-01-01 00:00:00.', ' 2024-01-01 00:00:00'),
    fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).chain((d) =>
      fc.integer({ min: 0, max: 9 }).map((n) => d.toISOString().slice(0, 19).replace('T', n % 2 ? 'T' : ' ') + (n ? '.' + String(d.getTime()).padStart(9, '0').slice(-n) : '')),
    ),
  );
  it('on edges and generated values (seeded)', () => {
    let taken = 0;
    let decimals = 0;
    fc.assert(
      fc.property(values, (v) => {
        for (const [name, b, col] of targets)
          for (const [type, sb, loose, float4] of sources)
            for (const rfc3339 of [false, true]) {
              const src: SourceColumn = { col: { name: 'c', type, dbType: type, nullable: true, ...(float4 ? { floatBits: 24 as const } : {}) }, type, loose, kind: sb.constructor.name, binder: sb };
              const nat = b.nativeConverter(col, src, { serverChecks: true, rfc3339 });
              if (!nat) continue;
              let quick: unknown;
              try {
                quick = nat(v);
              } catch {
                // The row path then takes the full converter, which must refuse it too (and name the field).
                expect({ name, type, loose, rfc3339, v, full: full(b, col, src, v, rfc3339).split(' ')[0] }).toEqual({ name, type, loose, rfc3339, v, full: 'rejects' });
                continue;
              }
              if (quick === NEED_FIELD) continue;
              taken++;
              if (col.type === 'decimal') decimals++;
              const answer = full(b, col, src, v, rfc3339);
              if (serverChecked(b, col, answer, quick, v)) continue;
              expect({ name, type, loose, rfc3339, v, got: `ok ${String(quick)}` }).toEqual({ name, type, loose, rfc3339, v, got: answer });
            }
      }),
      { seed: 1123, numRuns: 6000 },
    );
    expect(taken).toBeGreaterThan(1000);
    expect(decimals).toBeGreaterThan(500);
  });
});
