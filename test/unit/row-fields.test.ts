import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnRenderer, type RenderColumn, type RenderOptions } from '../../src/connectors/sql/values/render.js';
import { RowShape } from '../../src/connectors/sql/values/row-fields.js';
import type { LogicalType } from '../../src/connectors/sql/types.js';

// Rows moved without messages (SQL → SQL) are converted from the fields a RowShape builds straight
// from driver values; a message's JSON is rendered. Both must agree on every value, or a copy would
// land differently depending on the sink.
const TYPES: (LogicalType | undefined)[] = ['text', 'uuid', 'time', 'date', 'timestamp', 'timestamptz', 'decimal', 'int', 'bigint', 'bool', 'float', 'json', 'bytes', undefined];

function outcome(fn: () => { kind: string; raw: string }): string {
  try {
    const f = fn();
    return `${f.kind} ${f.raw}`;
  } catch (e) {
    return `throws`;
  }
}

function kindOf(json: string): string {
  const c = json.trimStart()[0];
  return c === '{' ? 'object' : c === '[' ? 'array' : c === '"' ? 'string' : c === 'n' ? 'null' : c === 't' ? 'true' : c === 'f' ? 'false' : 'number';
}

function check(type: LogicalType | undefined, loose: boolean, o: RenderOptions, raw: unknown): void {
  const col: RenderColumn = { name: 'c', type, scale: type === 'decimal' ? 2 : undefined };
  const render = columnRenderer(col, o, loose);
  const shape = new RowShape([col], o, loose, () => '');
  const built = outcome(() => shape.field([raw], 0));
  const rendered = outcome(() => {
    const json = render(raw);
    return { kind: kindOf(json), raw: json };
  });
  expect(built, `${type ?? 'untyped'} loose=${loose} ${o.timestamps} ${typeof raw} ${String(raw)}`).toBe(rendered);
}

/** What a typed database hands over for a column of the type (a strict source never holds anything else). */
function typedValue(type: LogicalType | undefined, raw: unknown): boolean {
  if (raw === null) return true;
  if (typeof raw !== 'string') return false;
  switch (type) {
    case 'int':
    case 'bigint':
      return /^-?\d+$/.test(raw);
    case 'decimal':
    case 'float':
      return /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(raw) || ['NaN', 'Infinity', '-Infinity'].includes(raw);
    case 'bool':
      return raw === 't' || raw === 'f';
    case 'json':
      try {
        JSON.parse(raw);
        return true;
      } catch {
        return false;
      }
    default:
      return true;
  }
}

const EDGES: unknown[] = ['', ' padded ', 'a\tb\n"c"\\', 'é ☃ 𝄞', '2024-02-29 23:59:59.123456', '2024-02-29 23:59:59.123456+02', 'infinity', '12.50', '-0', '1e3', 'NaN', '9007199254740993', '{"a":[1,2]}', '[1]', 'null', 'true', '\\x00ff', 't', 'f', '1', '0', 42, -7, 2.5, -0, 1e21, 9007199254740993n, -5n, true, false, Buffer.from([0, 255]), null];
const options: RenderOptions[] = [{ timestamps: 'text' }, { timestamps: 'rfc3339' }];

describe('fields built from driver values equal the rendered JSON', () => {
  for (const loose of [true, false])
    for (const o of options)
      it(`${loose ? 'loose (SQLite)' : 'typed'} source, timestamps=${o.timestamps}: edge values of every type`, () => {
        for (const type of TYPES) for (const raw of EDGES) if (loose || typedValue(type, raw)) check(type, loose, o, raw);
      });

  it('generated values of every type, loose and typed (seeded)', () => {
    const value = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.bigInt(), fc.boolean(), fc.uint8Array().map((a) => Buffer.from(a)), fc.constant(null), fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace('T', ' ').replace('Z', '')));
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), fc.boolean(), fc.constantFrom(...options), value, (type, loose, o, raw) => {
        if (!loose && !typedValue(type, raw)) return;
        check(type, loose, o, raw);
      }),
      { seed: 15, numRuns: 3000 },
    );
  });
});
