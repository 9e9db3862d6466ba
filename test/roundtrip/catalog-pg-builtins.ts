import type { Case } from './gen.js';

/**
 * Every built-in PostgreSQL type a table column can have, as pg_type lists it (catalog-coverage
 * checks that none is missing): a few values each, in PostgreSQL's own literal syntax. Types the
 * main catalogue (catalog-pg.ts) covers with generated values are not repeated here. They travel
 * as their text, which PostgreSQL reads back exactly; the round trip proves it for each kind.
 */
export const PG_BUILTIN_SAMPLES: Record<string, string[]> = {
  '"char"': ["'a'", "'\\\\000'"],
  aclitem: ["'postgres=arwdDxt/postgres'", "'=r/postgres'"],
  character: ["'a'", "' '"],
  cid: ["'0'", "'4294967295'"],
  cidr: ["'10.0.0.0/8'", "'::/0'", "'2001:db8::/32'"],
  circle: ["'<(1,2),3>'", "'<(0.1,-0.2),1e-300>'"],
  inet: ["'10.0.0.1/8'", "'::1'", "'192.168.0.1'"],
  int2vector: ["'1 2 3'", "''"],
  jsonpath: ["'$.a[*] ? (@ > 2)'", "'strict $'"],
  macaddr: ["'08:00:2b:01:02:03'"],
  macaddr8: ["'08:00:2b:01:02:03:04:05'"],
  money: ["'12.34'", "'-92233720368547758.08'"],
  name: ["'a name'", "''"],
  oid: ["'0'", "'4294967295'"],
  oidvector: ["'1 2 3'"],
  path: ["'[(1,2),(3,4)]'", "'((0,0),(1,1),(2,0))'"],
  pg_lsn: ["'0/0'", "'FFFFFFFF/FFFFFFFF'", "'16/B374D848'"],
  pg_snapshot: ["'10:20:10,14,15'"],
  point: ["'(1.5,-2.25)'", "'(1e+300,5e-324)'"],
  polygon: ["'((0,0),(1,0),(1,1))'"],
  box: ["'(1,1),(0,0)'"],
  lseg: ["'[(0,0),(1,1)]'"],
  line: ["'{1,-1,0}'"],
  refcursor: ["'a cursor'"],
  regclass: ["'pg_class'"],
  regcollation: ["'\"C\"'"],
  regconfig: ["'english'"],
  regdictionary: ["'simple'"],
  regnamespace: ["'pg_catalog'"],
  regoper: ["'||/'"],
  regoperator: ["'+(integer,integer)'"],
  regproc: ["'now'"],
  regprocedure: ["'abs(integer)'"],
  regrole: ["'postgres'"],
  regtype: ["'integer'", "'timestamp with time zone'"],
  tid: ["'(0,1)'", "'(4294967295,65535)'"],
  'time with time zone': ["'04:05:06.789-08'", "'24:00:00+1559'"],
  tsquery: ["'fat & (rat | cat)'", "'a:* & !b'"],
  tsvector: ["'a fat cat sat on a mat'", "'a:1A fat:2B,4C'"],
  txid_snapshot: ["'10:20:10,14,15'"],
  xid: ["'0'", "'4294967295'"],
  xid8: ["'0'", "'18446744073709551615'"],
  xml: ["'<a b=\"1\">x &amp; y</a>'", "'text only'"],
  int4range: ["'[1,5)'", "'empty'", "'(,3]'"],
  int8range: ["'[-9223372036854775808,0)'"],
  numrange: ["'[1.50,2.500]'", "'(,)'"],
  daterange: ["'[2024-01-01,2024-12-31)'", "'[-infinity,infinity)'"],
  tsrange: ["'[2024-01-01 00:00:00.000001,2024-01-02)'"],
  tstzrange: ["'[2024-01-01 00:00:00+00,2024-01-02 00:00:00+02)'"],
  int4multirange: ["'{[1,3),[5,7)}'", "'{}'"],
  int8multirange: ["'{[1,2)}'"],
  nummultirange: ["'{[1.1,2.2]}'"],
  datemultirange: ["'{[2024-01-01,2024-02-01)}'"],
  tsmultirange: ["'{[2024-01-01,2024-01-02)}'"],
  tstzmultirange: ["'{[2024-01-01 00:00:00+00,2024-01-02 00:00:00+00)}'"],
};

/** Built-in types no user table column holds a value of: PostgreSQL has no input for them. */
export const PG_NOT_STORABLE: Record<string, string> = {
  gtsvector: 'an index-internal type without input',
  pg_node_tree: 'planner trees; no input function',
  pg_ndistinct: 'extended statistics; no input function',
  pg_dependencies: 'extended statistics; no input function',
  pg_mcv_list: 'extended statistics; no input function',
  pg_brin_bloom_summary: 'BRIN index internals; no input function',
  pg_brin_minmax_multi_summary: 'BRIN index internals; no input function',
};

export function pgBuiltinCases(): Case[] {
  return Object.entries(PG_BUILTIN_SAMPLES).map(([ddl, values]) => ({ col: `b_${ddl.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '')}`, ddl, family: 'text', values }));
}
