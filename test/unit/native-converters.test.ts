import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MysqlBinder } from '../../src/connectors/mysql/bind.js';
import { PgBinder } from '../../src/connectors/postgres/bind.js';
import { NEED_FIELD, type Binder, type SourceColumn } from '../../src/connectors/sql/bind.js';
import { RowShape } from '../../src/connectors/sql/row-fields.js';
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
];
const sources: [LogicalType, Binder][] = [
  ['int', new MysqlBinder()],
  ['bigint', new PgBinder()],
  ['text', new MysqlBinder()],
  ['uuid', new PgBinder()],
];

function full(b: Binder, col: ColumnInfo, src: SourceColumn, v: unknown): string {
  const shape = new RowShape([{ name: 'c', type: src.type }], { timestamps: 'text' }, false, () => '', [src]);
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
  );
  it('on edges and generated values (seeded)', () => {
    let taken = 0;
    fc.assert(
      fc.property(values, (v) => {
        for (const [name, b, col] of targets)
          for (const [type, sb] of sources) {
            const src: SourceColumn = { col: { name: 'c', type, dbType: type, nullable: true }, type, loose: false, kind: sb.constructor.name, binder: sb };
            const nat = b.nativeConverter(col, src);
            if (!nat) continue;
            let quick: unknown;
            try {
              quick = nat(v);
            } catch {
              // The row path then takes the full converter, which must refuse it too (and name the field).
              expect({ name, type, v, full: full(b, col, src, v).split(' ')[0] }).toEqual({ name, type, v, full: 'rejects' });
              continue;
            }
            if (quick === NEED_FIELD) continue;
            taken++;
            expect({ name, type, v, got: `ok ${String(quick)}` }).toEqual({ name, type, v, got: full(b, col, src, v) });
          }
      }),
      { seed: 1123, numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(1000);
  });
});
