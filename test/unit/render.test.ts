import { describe, expect, it } from 'vitest';
import { parsePgArray } from '../../src/connectors/postgres/array.js';
import { columnRenderer, renderInteger, rowRenderer, toRfc3339 } from '../../src/connectors/sql/values/render.js';

describe('decisions §4 rendering', () => {
  it('integers beyond ±2^53 become strings, exactly', () => {
    expect(renderInteger('9007199254740991')).toBe('9007199254740991');
    expect(renderInteger('9007199254740992')).toBe('"9007199254740992"');
    expect(renderInteger(-9007199254740993n)).toBe('"-9007199254740993"');
    expect(renderInteger(42)).toBe('42');
  });

  it('RFC 3339 in UTC keeps every fractional digit and converts offsets', () => {
    expect(toRfc3339('2024-01-02 03:04:05.123456+00')).toBe('2024-01-02T03:04:05.123456Z');
    expect(toRfc3339('2024-01-02 03:04:05.1234567+05:30')).toBe('2024-01-01T21:34:05.1234567Z');
    expect(toRfc3339('2024-01-02 03:04:05')).toBe('2024-01-02T03:04:05Z');
    expect(toRfc3339('infinity')).toBe('infinity');
  });

  it('floats: NaN and infinities become strings', () => {
    const f = columnRenderer({ name: 'f', type: 'float' }, { timestamps: 'text' });
    expect([f('1.5'), f(Number.NaN), f('-Infinity'), f(0.1), f(null)]).toEqual(['1.5', '"NaN"', '"-Infinity"', '0.1', 'null']);
  });

  it('JSON text passes through exactly, newlines flattened to keep one line', () => {
    const j = columnRenderer({ name: 'j', type: 'json' }, { timestamps: 'text' });
    expect(j('{"p": 30.00,\n "x": 1}')).toBe('{"p": 30.00,  "x": 1}');
  });

  it('bytes are base64 from PostgreSQL hex text and from buffers', () => {
    const b = columnRenderer({ name: 'b', type: 'bytes' }, { timestamps: 'text' });
    expect(b('\\x00ff10')).toBe('"AP8Q"');
    expect(b(Buffer.from([0, 255, 16]))).toBe('"AP8Q"');
  });

  it('PostgreSQL array text, quoted, NULL, nested', () => {
    expect(parsePgArray('{1,NULL,"a \\"b\\"",{x,y}}')).toEqual(['1', null, 'a "b"', ['x', 'y']]);
    expect(parsePgArray('{}')).toEqual([]);
    expect(parsePgArray('[1:2]={7,8}')).toEqual(['7', '8']);
    // A lower bound other than 1 has no place in a JSON array: the text stays whole (issue 26).
    expect(parsePgArray('[0:1]={7,8}')).toBe('[0:1]={7,8}');
    // Vector types' text has no braces: returned as it is, never parsed (it looped forever).
    expect(parsePgArray('1 2 3')).toBe('1 2 3');
  });

  it('a compiled row renderer escapes keys once', () => {
    const r = rowRenderer([{ name: 'a"b', type: 'int' }, { name: 't', type: 'text' }], { timestamps: 'text' });
    expect(r(['1', 'x\ny'])).toBe('{"a\\"b":1,"t":"x\\ny"}');
  });
});
