import fc from 'fast-check';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINARY_HEAD, BINARY_TAIL } from '../../src/connectors/postgres/copy-out.js';
import { binaryEncoders, CopyBinaryEncoder } from '../../src/connectors/postgres/copy-binary.js';
import { CopyTextEncoder } from '../../src/connectors/postgres/copy-encoder.js';
import { PG_URL } from '../helpers/databases.js';

/**
 * Issue 15: converted values go to PostgreSQL in binary COPY when the encoder takes them. Whatever
 * it takes must be stored as the same value the server makes of the same value sent as text: both
 * loads of thousands of generated values (seeded, edges included) are compared as the server
 * prints them; what the encoder refuses goes as text (the server's own rules decide).
 */
let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: PG_URL, options: '-c TimeZone=UTC' });
  await client.connect();
});
afterAll(async () => {
  await client.end();
});

async function copy(sql: string, chunks: Buffer[]): Promise<void> {
  await pipeline(Readable.from(chunks), client.query(copyFrom(sql)));
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');
/** Mostly valid parts, with the edges a server treats its own way (24:00, :60, Feb 30, 7 fraction digits) now and then. */
const part = (lo: number, hi: number, edges: number[]) => fc.oneof({ weight: 9, arbitrary: fc.integer({ min: lo, max: hi }) }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
const dateText = fc.tuple(part(1, 9999, [1, 1970, 2000, 9999]), part(1, 12, [1, 2, 12]), part(1, 28, [29, 30, 31])).map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
const timeText = fc
  .tuple(part(0, 23, [0, 23, 24]), part(0, 59, [0, 59, 60]), part(0, 59, [0, 59, 60]), fc.option(fc.oneof({ weight: 9, arbitrary: fc.stringMatching(/^\d{1,6}$/) }, { weight: 1, arbitrary: fc.stringMatching(/^\d{7}$/) }), { nil: undefined }))
  .map(([h, m, s, f]) => `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${f === undefined ? '' : '.' + f}`);
const zone = fc.constantFrom('', '', '', '', 'Z', '+00', '-05', '+05:30', '+14:00', '-15:59:59', '+16', '+0530');
const timestamps = fc.tuple(dateText, fc.constantFrom(' ', ' ', 'T'), timeText, zone).map(([d, sep, t, z]) => d + sep + t + z);
const zoneless = fc.tuple(dateText, fc.constantFrom(' ', ' ', 'T'), timeText).map(([d, sep, t]) => d + sep + t);
const decimals = fc.oneof(
  fc.tuple(fc.boolean(), fc.stringMatching(/^\d{1,20}$/), fc.option(fc.stringMatching(/^\d{0,12}$/), { nil: undefined })).map(([neg, i, f]) => `${neg ? '-' : ''}${i}${f === undefined ? '' : '.' + f}`),
  fc.constantFrom('0', '-0', '0.000', '-0.00', '10000', '9999.9999', '0.0001', '00012.3400', 'NaN', '1e5', '+1', '.5', '5.'),
);
const ints = fc.oneof(fc.integer().map(String), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), fc.constantFrom('-0', '007', '9007199254740993', '-9223372036854775808'), fc.integer({ min: -40000, max: 40000 }));
const floats = fc.oneof(fc.double().map(String), fc.double(), fc.constantFrom('1e400', '-1e-400', '4.9e-324', '.5', '5.', '1E+10', 'Infinity', '-Infinity', 'NaN', '-0', '0x10', ' 1'));
const texts = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }).filter((x) => !x.includes('\0')), fc.constantFrom('', 'abc', 'é😀', '\\', '\t\n'));
const uuids = fc.oneof(fc.uuid(), fc.uuid().map((u) => u.toUpperCase()), fc.constantFrom('{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', 'a0eebc999c0b4ef8bb6d6bb9bd380a11'));

const cases: { type: string; castType: string; values: fc.Arbitrary<unknown> }[] = [
  { type: 'int2', castType: 'int2', values: ints },
  { type: 'int4', castType: 'int4', values: ints },
  { type: 'int8', castType: 'int8', values: ints },
  { type: 'float8', castType: 'float8', values: floats },
  { type: 'numeric', castType: 'numeric', values: decimals },
  { type: 'numeric(12,2)', castType: 'numeric', values: decimals },
  { type: 'text', castType: 'text', values: texts },
  { type: 'varchar(60)', castType: 'varchar', values: texts },
  { type: 'char(8)', castType: 'bpchar', values: fc.string({ maxLength: 8 }) },
  { type: 'jsonb', castType: 'jsonb', values: fc.json() },
  { type: 'json', castType: 'json', values: fc.json() },
  { type: 'bool', castType: 'bool', values: fc.constantFrom(true, false, 't', 'f', 'true', 'false', 'yes', '1') },
  { type: 'bytea', castType: 'bytea', values: fc.uint8Array({ maxLength: 30 }).map((a) => Buffer.from(a)) },
  { type: 'uuid', castType: 'uuid', values: uuids },
  { type: 'date', castType: 'date', values: fc.oneof(dateText, fc.constantFrom('0000-01-01', '2024-02-30', '1999-02-29', '2000-02-29', 'infinity')) },
  { type: 'timestamp', castType: 'timestamp', values: fc.oneof({ weight: 4, arbitrary: zoneless }, { weight: 1, arbitrary: timestamps }) },
  { type: 'timestamptz', castType: 'timestamptz', values: timestamps },
];

/** Loads each value alone by text; null when the server refuses it (the value is then left out of the comparison). */
async function acceptedByText(type: string, values: unknown[]): Promise<(unknown | null)[]> {
  const ok: (unknown | null)[] = [];
  for (const v of values) {
    await client.query('SAVEPOINT v');
    const enc = new CopyTextEncoder();
    enc.row([v]);
    try {
      await copy(`COPY t_probe (v) FROM STDIN`, enc.finish());
      ok.push(v);
    } catch {
      ok.push(null);
    }
    await client.query('ROLLBACK TO SAVEPOINT v');
  }
  void type;
  return ok;
}

describe('binary COPY of converted values', () => {
  for (const c of cases) {
    it(`${c.type}: every value the encoder takes is stored as its text would be (seeded)`, async () => {
      const values = fc.sample(c.values, { numRuns: 400, seed: 1515 }).filter((v) => v !== null);
      await client.query(`DROP TABLE IF EXISTS t_text, t_bin, t_probe; CREATE TABLE t_text (i int, v ${c.type}); CREATE TABLE t_bin (i int, v ${c.type}); CREATE TABLE t_probe (v ${c.type})`);
      await client.query('BEGIN');
      const accepted = await acceptedByText(c.type, values);
      await client.query('COMMIT');
      const encs = binaryEncoders([{ name: 'i', type: 'int', dbType: 'integer', nullable: true, castType: 'int4' }, { name: 'v', type: 'text', dbType: c.type, nullable: true, castType: c.castType }], true)!;
      const text = new CopyTextEncoder();
      const bin = new CopyBinaryEncoder(encs);
      let taken = 0;
      for (let i = 0; i < values.length; i++) {
        // A value the encoder takes that the server refuses as text must be refused in binary too.
        if (accepted[i] === null) {
          const alone = new CopyBinaryEncoder(encs);
          if (alone.row([i, values[i]])) {
            await expect(copy(`COPY t_bin (i, v) FROM STDIN (FORMAT binary)`, [BINARY_HEAD, ...alone.finish(), BINARY_TAIL]), `${c.type} ${JSON.stringify(values[i])}`).rejects.toThrow();
          }
          continue;
        }
        if (!bin.row([i, values[i]])) continue;
        text.row([i, values[i]]);
        taken++;
      }
      await copy('COPY t_text (i, v) FROM STDIN', text.finish());
      await copy('COPY t_bin (i, v) FROM STDIN (FORMAT binary)', [BINARY_HEAD, ...bin.finish(), BINARY_TAIL]);
      const q = (t: string) => client.query(`SELECT i, v::text AS v FROM ${t} ORDER BY i`).then((r) => r.rows);
      expect(await q('t_bin')).toEqual(await q('t_text'));
      // The encoder takes the common spellings: most generated values go binary.
      expect(taken, `${c.type}: binary took ${taken} of ${values.length}`).toBeGreaterThan(values.length / 4);
    });
  }
});
