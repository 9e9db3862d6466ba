import fc from 'fast-check';
import { doubleArb, hex, jsonArb, TEXT_EDGES, textArb, timestampArb, values, type Case } from './gen.js';

/** A SQLite string literal; NUL goes in through char(0). */
const q = (s: string): string => s.split('\u0000').map((p) => `'${p.replace(/'/g, "''")}'`).join(' || char(0) || ');
/** A SQLite REAL literal (±Infinity as 9e999; the exponent keeps whole numbers REAL). */
const real = (s: string): string => (s === 'Infinity' ? '9e999' : s === '-Infinity' ? '-9e999' : /[.eE]/.test(s) ? s : `${s}.0`);

/** SQLite as people write it: declared and undeclared columns mixing storage classes, 2^63-1, 17-digit reals, JSON in TEXT. */
export function sqliteCases(): Case[] {
  return [
    { col: 'c_int', ddl: 'INTEGER', family: 'int', values: values(['9223372036854775807', '-9223372036854775808', '0', "''", "'n/a'"], fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), String, 51) },
    { col: 'c_real', ddl: 'REAL', family: 'float', values: values(['9e999', '-9e999', '0.1', '1.7976931348623157e308', '5e-324', '0.30000000000000004'], doubleArb.filter((s) => s !== '-0'), real, 52) },
    { col: 'c_text', ddl: 'TEXT', family: 'text', values: values([...TEXT_EDGES, 'nul\u0000inside', '42', '2.5'].map(q), textArb(40, true), q, 53) },
    { col: 'c_json_text', ddl: 'TEXT', family: 'text', values: values(["'{\"a\":30.00}'", "'[1, 2.50]'", "'not json'", q('nul\u0000')], jsonArb, q, 54) },
    { col: 'c_blob', ddl: 'BLOB', family: 'bytes', values: values(["X''", "X'00'", "X'00FF'"], fc.uint8Array({ maxLength: 40 }), (b) => `X'${hex(b)}'`, 55) },
    { col: 'c_any', ddl: '', family: 'any', values: ['42', '2.5', "X'00FF'", "'text'", "'42'", '9223372036854775807', '-0.0', '1e300', q('nul\u0000')] },
    { col: 'c_dec', ddl: 'DECIMAL(10,2)', family: 'decimal', values: ['30.00', '0.1', '1.005', '12345678.9', '-0.5', '1e40', '1e-40'] },
    { col: 'c_dec65', ddl: 'DECIMAL(65,30)', family: 'decimal', values: ['1e35', '0.1', '12345678901234567890'] },
    { col: 'c_bool', ddl: 'BOOLEAN', family: 'bool', values: ['0', '1', '2'] },
    { col: 'c_json', ddl: 'JSON', family: 'json', values: ["'{\"a\":30.00}'", "'[1,2]'", "'\"s\"'", "'1.5'", "'not json'"] },
    { col: 'c_dt', ddl: 'DATETIME', family: 'timestamp', values: values(["'2024-01-02 03:04:05'", "'2024-01-02T03:04:05.123Z'", '1700000000'], timestampArb(3), q, 56) },
  ];
}
