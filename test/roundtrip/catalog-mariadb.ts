import fc from 'fast-check';
import { clock, dateArb, decimalArb, doubleArb, floatArb, hex, JSON_EDGES, jsonArb, TEXT_EDGES, textArb, timestampArb, uuidArb, values, type Case } from './gen.js';

/** A MariaDB string literal (backslash escapes on, NUL as \0). */
const q = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\u0000/g, '\\0')}'`;
const int = (min: bigint, max: bigint, salt: number): string[] => values([String(min), String(max), '0'], fc.bigInt({ min, max }), String, salt);

/** MariaDB types with their edges: UNSIGNED beyond 2^63, TINYINT(1) = 127, zero dates, YEAR 0, TIME ±838 h, ENUM '', BIT, NUL in text… */
export function mariadbCases(): Case[] {
  return [
    { col: 'c_tinyint', ddl: 'TINYINT', family: 'int', values: int(-128n, 127n, 21) },
    { col: 'c_tinyint_u', ddl: 'TINYINT UNSIGNED', family: 'int', values: int(0n, 255n, 22) },
    { col: 'c_bool', ddl: 'TINYINT(1)', family: 'bool', values: ['0', '1', '127', '-128', '2'] },
    { col: 'c_smallint', ddl: 'SMALLINT', family: 'int', values: int(-32768n, 32767n, 23) },
    { col: 'c_mediumint', ddl: 'MEDIUMINT', family: 'int', values: int(-8388608n, 8388607n, 24) },
    { col: 'c_int', ddl: 'INT', family: 'int', values: int(-2147483648n, 2147483647n, 25) },
    { col: 'c_int_u', ddl: 'INT UNSIGNED', family: 'int', values: int(0n, 4294967295n, 26) },
    { col: 'c_bigint', ddl: 'BIGINT', family: 'int', values: int(-(2n ** 63n), 2n ** 63n - 1n, 27) },
    { col: 'c_bigint_u', ddl: 'BIGINT UNSIGNED', family: 'int', values: int(0n, 2n ** 64n - 1n, 28).concat(['9223372036854775808']) },
    { col: 'c_dec', ddl: 'DECIMAL(65,30)', family: 'decimal', values: values(['0', '-0.000000000000000000000000000001', '99999999999999999999999999999999999.999999999999999999999999999999', '30.00'], decimalArb(35, 30), (s) => s, 29) },
    { col: 'c_dec2', ddl: 'DECIMAL(12,2)', family: 'decimal', values: values(['9999999999.99', '-0.01'], decimalArb(10, 2), (s) => s, 30) },
    { col: 'c_float', ddl: 'FLOAT', family: 'float4', values: values(['1.1', '3.40282e38', '-0', '1e-38'], floatArb, (s) => s, 31) },
    { col: 'c_double', ddl: 'DOUBLE', family: 'float', values: values(['0.1', '1.7976931348623157e308', '-0', '5e-324', '9007199254740993'], doubleArb, (s) => s, 32) },
    { col: 'c_bit1', ddl: 'BIT(1)', family: 'bool', values: ["b'0'", "b'1'"] },
    { col: 'c_bit', ddl: 'BIT(12)', family: 'bits', values: values(["b'0'", "b'111111111111'"], fc.integer({ min: 0, max: 4095 }), (n) => `b'${n.toString(2)}'`, 33) },
    { col: 'c_json', ddl: 'JSON', family: 'json', values: values([...JSON_EDGES, '{"nul":"\\\\u0000"}'].map((s) => q(s)), jsonArb, q, 34) },
    { col: 'c_enum', ddl: "ENUM('a','b','c d','it''s')", family: 'text', values: ["'a'", "'c d'", "'it''s'", "''"] },
    { col: 'c_set', ddl: "SET('x','y','z')", family: 'text', values: ["'x'", "'x,z'", "''", "'x,y,z'"] },
    { col: 'c_blob', ddl: 'BLOB', family: 'bytes', values: values(["X''", "X'00'", "X'00FF10'"], fc.uint8Array({ maxLength: 40 }), (b) => `X'${hex(b)}'`, 35) },
    { col: 'c_varbinary', ddl: 'VARBINARY(16)', family: 'bytes', values: values(["X'00'"], fc.uint8Array({ maxLength: 16 }), (b) => `X'${hex(b)}'`, 36) },
    { col: 'c_varchar', ddl: 'VARCHAR(100)', family: 'text', values: values([q('é'.repeat(100)), q('nul\u0000')], textArb(100, true), q, 37) },
    { col: 'c_text', ddl: 'TEXT', family: 'text', values: values([...TEXT_EDGES, 'nul\u0000inside'].map(q), textArb(40, true), q, 38) },
    { col: 'c_date', ddl: 'DATE', family: 'date', values: values(["'0000-00-00'", "'1000-01-01'", "'9999-12-31'", "'2024-02-29'"], dateArb, q, 39) },
    { col: 'c_datetime', ddl: 'DATETIME(6)', family: 'timestamp', values: values(["'0000-00-00 00:00:00'", "'1000-01-01 00:00:00'", "'9999-12-31 23:59:59.999999'"], timestampArb(6), q, 40) },
    { col: 'c_timestamp', ddl: 'TIMESTAMP(6) NULL', family: 'timestamp', values: values(["'1970-01-01 00:00:01'", "'2038-01-19 03:14:07.999999'", "'0000-00-00 00:00:00'"], timestampArb(6).filter((t) => t > '1971' && t < '2037'), q, 41) },
    { col: 'c_time', ddl: 'TIME(6)', family: 'time', values: values(["'838:59:59'", "'-838:59:59'", "'-00:00:01'", "'24:00:00'", "'12:34:56.5'"], fc.integer({ min: 0, max: 86399 }), (s) => q(clock(s)), 42) },
    { col: 'c_year', ddl: 'YEAR', family: 'int', values: ['0', '1901', '2155', '2024'] },
    { col: 'c_uuid', ddl: 'UUID', family: 'text', values: values([], uuidArb, q, 43) },
    { col: 'c_inet6', ddl: 'INET6', family: 'text', values: ["'::1'", "'::ffff:1.2.3.4'", "'2001:db8::ff00:42:8329'", "'::'"] },
    { col: 'c_inet4', ddl: 'INET4', family: 'text', values: ["'0.0.0.0'", "'255.255.255.255'", "'10.0.0.1'"] },
    // Spatial values travel as MySQL's bytes (SRID + WKB): the same type on MariaDB, bytea/BLOB/base64 elsewhere.
    { col: 'c_point', ddl: 'POINT', family: 'bytes', values: ['POINT(1.5, -2.25)', "ST_GeomFromText('POINT(0.1 0.30000000000000004)', 4326)", 'POINT(-0, 5e-324)'] },
    { col: 'c_geometry', ddl: 'GEOMETRY', family: 'bytes', values: ["ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 0),(1 1,2 1,2 2,1 1))', 3857)", "ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1e300 -1e-300))')", "ST_GeomFromText('MULTIPOINT(1 1,2 2)')"] },
    // The rest of what the server lists (catalog-coverage.test.ts): unsigned variants, fixed-length and sized text and bytes, every geometry subtype.
    { col: 'c_smallint_u', ddl: 'SMALLINT UNSIGNED', family: 'int', values: int(0n, 65535n, 44) },
    { col: 'c_mediumint_u', ddl: 'MEDIUMINT UNSIGNED', family: 'int', values: int(0n, 16777215n, 45) },
    { col: 'c_dec_u', ddl: 'DECIMAL(20,4) UNSIGNED', family: 'decimal', values: ['0', '9999999999999999.9999', '0.0001'] },
    { col: 'c_float_u', ddl: 'FLOAT UNSIGNED', family: 'float4', values: ['0', '1.5', '3.40282e38', '1e-38'] },
    { col: 'c_double_u', ddl: 'DOUBLE UNSIGNED', family: 'float', values: ['0', '0.1', '1.7976931348623157e308', '9007199254740993'] },
    { col: 'c_char', ddl: 'CHAR(5)', family: 'text', values: ["'ab'", "''", "'abcde'", "'éééé'", "' a'", q('a\u0000')] },
    { col: 'c_binary', ddl: 'BINARY(4)', family: 'bytes', values: ["X'00'", "X'01020304'", "X''", "X'FF'"] },
    { col: 'c_tinyblob', ddl: 'TINYBLOB', family: 'bytes', values: ["X''", `X'${'ab'.repeat(255)}'`] },
    { col: 'c_mediumblob', ddl: 'MEDIUMBLOB', family: 'bytes', values: ["X'00'", `X'${'0f'.repeat(70000)}'`] },
    { col: 'c_longblob', ddl: 'LONGBLOB', family: 'bytes', values: ["X'00FF'", `X'${'e2'.repeat(20000)}'`] },
    { col: 'c_tinytext', ddl: 'TINYTEXT', family: 'text', values: [q('x'.repeat(255)), q('é'.repeat(63)), q('\u0000')] },
    { col: 'c_mediumtext', ddl: 'MEDIUMTEXT', family: 'text', values: [q('long '.repeat(20000)), q('nul\u0000')] },
    { col: 'c_longtext', ddl: 'LONGTEXT', family: 'text', values: [q('{"not":"json"'), q('🦀'.repeat(1000)), q('x\u0000y')] },
    { col: 'c_linestring', ddl: 'LINESTRING', family: 'bytes', values: ["ST_GeomFromText('LINESTRING(0 0,1 1,2 0.5)')", "ST_GeomFromText('LINESTRING(-180 -90,180 90)', 4326)"] },
    { col: 'c_polygon', ddl: 'POLYGON', family: 'bytes', values: ["ST_GeomFromText('POLYGON((0 0,4 0,4 4,0 0))', 2154)"] },
    { col: 'c_multipoint', ddl: 'MULTIPOINT', family: 'bytes', values: ["ST_GeomFromText('MULTIPOINT(0 0,1e-300 1e300)')"] },
    { col: 'c_multilinestring', ddl: 'MULTILINESTRING', family: 'bytes', values: ["ST_GeomFromText('MULTILINESTRING((0 0,1 1),(2 2,3 3,4 4))')"] },
    { col: 'c_multipolygon', ddl: 'MULTIPOLYGON', family: 'bytes', values: ["ST_GeomFromText('MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))', 4326)"] },
    { col: 'c_geomcoll', ddl: 'GEOMETRYCOLLECTION', family: 'bytes', values: ["ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 2),POLYGON((0 0,1 0,1 1,0 0)))')"] },
    { col: 'order', ddl: 'VARCHAR(10)', family: 'text', values: ["'reserved'", q('a\u0000b')] },
  ];
}
