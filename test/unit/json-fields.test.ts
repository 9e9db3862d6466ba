import { describe, expect, it } from 'vitest';
import { scanFields } from '../../src/core/json-fields.js';

const raw = (text: string) => Object.fromEntries([...(scanFields(text) ?? [])].map(([k, f]) => [k, [f.kind, f.raw]]));

describe('scanFields keeps each top-level value as its exact text', () => {
  it('nested objects and arrays end where their brackets balance, brackets and escaped quotes inside strings aside', () => {
    const text = '{"a": {"s": "}]\\"{[", "n": [1, {"x": "]"}], "e": {}}, "b": [[], ["\\\\"]], "c": 30.00}';
    expect(raw(text)).toEqual({
      a: ['object', '{"s": "}]\\"{[", "n": [1, {"x": "]"}], "e": {}}'],
      b: ['array', '[[], ["\\\\"]]'],
      c: ['number', '30.00'],
    });
  });

  it('an unbalanced nested value is not a JSON object', () => {
    expect(scanFields('{"a": {"b": [1, 2}')).toBeUndefined();
    expect(scanFields('{"a": ["x]"}')).toBeUndefined();
  });
});
