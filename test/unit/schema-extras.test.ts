import { describe, expect, it } from 'vitest';
import { portableDefault, translateCheck } from '../../src/connectors/sql/schema/extras.js';

const dq = (s: string): string => `"${s.replace(/"/g, '""')}"`;

describe('a source default in a portable form (the text each catalog gives)', () => {
  it.each([
    ['0', { number: '0' }],
    ['(0)::numeric', { number: '0' }],
    ['-1.5', { number: '-1.5' }],
    ["'active'::text", { string: 'active' }],
    ["'it''s'::character varying", { string: "it's" }],
    ["'a'", { string: 'a' }],
    ['false', { boolean: false }],
    ['now()', { now: 'timestamp' }],
    ['CURRENT_TIMESTAMP', { now: 'timestamp' }],
    ['current_timestamp(6)', { now: 'timestamp' }],
    ["datetime('now')", { now: 'timestamp' }],
    ['CURRENT_DATE', { now: 'date' }],
    ['curdate()', { now: 'date' }],
    ['NULL', { null: true }],
  ])('%s', (text, want) => expect(portableDefault(text)).toEqual(want));

  it.each([["nextval('t_id_seq'::regclass)"], ['gen_random_uuid()'], ['(random() * 10)'], ["('a' || 'b')"], ['uuid()']])('%s is not portable', (text) => expect(portableDefault(text)).toBeUndefined());
});

describe('a check re-quoted for another kind, or not translated', () => {
  it.each([
    ['`score` >= 0', '"score" >= 0'],
    ['`stars` between 1 and 5', '"stars" BETWEEN 1 AND 5'],
    ['((price >= (0)::numeric))', '(("price" >= (0)))'],
    ["status IN ('a', 'b''c')", `"status" IN ('a', 'b''c')`],
    ['"end" > "start" OR "end" IS NULL', '"end" > "start" OR "end" IS NULL'],
  ])('%s', (expr, want) => expect(translateCheck(expr, dq)).toBe(want));

  it.each([['length(name) > 3'], ['(price)::int > 0 and x ~ y'], ['tags @> ARRAY[1]'], ["json_valid(`j`)"]])('%s is not translated', (expr) => expect(translateCheck(expr, dq)).toBeUndefined());
});
