import fc from 'fast-check';
import { pgBuiltinCases } from './catalog-pg-builtins.js';
import { dateArb, decimalArb, doubleArb, floatArb, hex, JSON_EDGES, jsonArb, TEXT_EDGES, textArb, timestampArb, uuidArb, values, type Case } from './gen.js';

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const int = (min: bigint, max: bigint, salt: number): string[] => values([String(min), String(max), '0', '-1'], fc.bigInt({ min, max }), String, salt);

/** The enum type the PostgreSQL source uses (created before the table). */
export const PG_SETUP = `DO $$ BEGIN CREATE TYPE rt_mood AS ENUM ('sad', 'ok', 'happy', 'it''s'); EXCEPTION WHEN duplicate_object THEN NULL; END $$`;

/** PostgreSQL types with their edges: NaN/Infinity, -0, 40+ digit numerics, ±infinity dates, 24:00, \N, 2-D arrays… */
export function pgCases(): Case[] {
  return [
    { col: 'c_int2', ddl: 'smallint', family: 'int', values: int(-32768n, 32767n, 1) },
    { col: 'c_int4', ddl: 'integer', family: 'int', values: int(-2147483648n, 2147483647n, 2) },
    { col: 'c_int8', ddl: 'bigint', family: 'int', values: int(-(2n ** 63n), 2n ** 63n - 1n, 3) },
    { col: 'c_num', ddl: 'numeric', family: 'decimal', values: values(["'NaN'", "'Infinity'", "'-Infinity'", '30.00', '-0.0000000001', '1234567890123456789012345678901234567890.123456789', '0'], decimalArb(45, 35), (s) => `'${s}'`, 4) },
    { col: 'c_num12', ddl: 'numeric(12,2)', family: 'decimal', values: values(['9999999999.99', '-0.01', '30.00', "'NaN'"], decimalArb(10, 2), (s) => `'${s}'`, 5) },
    { col: 'c_f4', ddl: 'real', family: 'float4', values: values(["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'3.4028235e38'", "'1e-45'", "'1.1'"], floatArb, (s) => `'${s}'`, 6) },
    { col: 'c_f8', ddl: 'double precision', family: 'float', values: values(["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'5e-324'", "'1.7976931348623157e308'", "'0.1'", "'9007199254740993'"], doubleArb, (s) => `'${s}'`, 7) },
    { col: 'c_bool', ddl: 'boolean', family: 'bool', values: ['true', 'false'] },
    { col: 'c_text', ddl: 'text', family: 'text', values: values(TEXT_EDGES.map(q), textArb(40), q, 8) },
    { col: 'c_vc', ddl: 'varchar(100)', family: 'text', values: values([q('x'.repeat(100))], textArb(100), q, 9) },
    { col: 'c_json', ddl: 'json', family: 'json', values: values([...JSON_EDGES, '{"nul":"\\u0000"}'].map(q), jsonArb, q, 10) },
    { col: 'c_jsonb', ddl: 'jsonb', family: 'json', values: values(JSON_EDGES.map(q), jsonArb, q, 11) },
    { col: 'c_bytea', ddl: 'bytea', family: 'bytes', values: values(["'\\x'", "'\\x00'", "'\\x00ff10'"], fc.uint8Array({ maxLength: 40 }), (b) => `'\\x${hex(b)}'`, 12) },
    { col: 'c_date', ddl: 'date', family: 'date', values: values(["'infinity'", "'-infinity'", "'0001-01-01'", "'9999-12-31'", "'0044-03-15 BC'", "'2024-02-29'"], dateArb, q, 13) },
    { col: 'c_time', ddl: 'time', family: 'time', values: values(["'24:00:00'", "'00:00:00'", "'23:59:59.999999'"], fc.integer({ min: 0, max: 86399 }).map((s) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`), q, 14) },
    { col: 'c_ts', ddl: 'timestamp(6)', family: 'timestamp', values: values(["'infinity'", "'-infinity'", "'0001-01-01 00:00:00'", "'9999-12-31 23:59:59.999999'", "'1970-01-01 00:00:00.000001'"], timestampArb(6), q, 15) },
    { col: 'c_tstz', ddl: 'timestamptz', family: 'timestamptz', values: values(["'infinity'", "'2024-01-02 03:04:05.123456+02'", "'1970-01-01 00:00:00+00'", "'2038-01-19 03:14:08+00'"], timestampArb(6), (s) => q(`${s}+00`), 16) },
    { col: 'c_interval', ddl: 'interval', family: 'text', values: ["'1 day 02:03:04.5'", "'-3 months'", "'00:00:00'", "'838:59:59'"] },
    { col: 'c_uuid', ddl: 'uuid', family: 'text', values: values([], uuidArb, q, 17) },
    { col: 'c_arr', ddl: 'integer[]', family: 'array', values: ["'{1,NULL,3}'", "'{}'", "'{{1,2},{3,4}}'", "'{-2147483648}'"] },
    { col: 'c_tarr', ddl: 'text[]', family: 'array', values: [`'{"a b","c,d","q\\"x",NULL,"NULL",""}'`, "'{}'"] },
    { col: 'c_bit', ddl: 'bit(5)', family: 'bits', values: ["B'10101'", "B'00000'", "B'00001'"] },
    { col: 'c_varbit', ddl: 'bit varying(10)', family: 'bits', values: ["B''", "B'1'", "B'0000000001'"] },
    { col: 'c_aclarr', ddl: 'aclitem[]', family: 'array', values: ["'{postgres=arwdDxt/postgres,=r/postgres}'", "'{}'"] },
    { col: 'c_enum', ddl: 'rt_mood', family: 'text', values: ["'sad'", "'happy'", "'it''s'"] },
    { col: 'select', ddl: 'text', family: 'text', values: ["'a reserved word as a column name'"] },
    { col: 'Mixed Case col', ddl: 'integer', family: 'int', values: ['7'] },
    // Every other built-in type pg_type lists (catalog-coverage.test.ts keeps this complete).
    ...pgBuiltinCases(),
  ];
}
