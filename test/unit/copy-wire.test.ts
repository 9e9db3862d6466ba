import { describe, expect, it } from 'vitest';
import { inlineParams, lastCopyRow, parseCopyText } from '../../src/connectors/postgres/copy-out.js';

describe('PostgreSQL COPY text as rows', () => {
  it('parses escapes, NULL and empty fields; the last row alone without parsing the rest', () => {
    const wire = [Buffer.from('1\ta\\tb\\nc\\\\d\t\\N\n'), Buffer.from('2\t\t\\\\N\té\n')];
    expect(parseCopyText(wire)).toEqual([
      ['1', 'a\tb\nc\\d', null],
      ['2', '', '\\N', 'é'],
    ]);
    expect(lastCopyRow(wire)).toEqual(['2', '', '\\N', 'é']);
    expect(lastCopyRow([Buffer.from('7\tx\n')])).toEqual(['7', 'x']);
  });

  it('inlines parameters as literals, outside identifiers and strings', () => {
    expect(inlineParams(`SELECT * FROM "t$1" WHERE ("k", 'x$1') > ($1, $2)`, ["a'b\\c", null])).toBe(`SELECT * FROM "t$1" WHERE ("k", 'x$1') > (E'a''b\\\\c', NULL)`);
  });
});

describe('the last COPY row across chunk boundaries', () => {
  it('is found wherever the chunks split the rows', () => {
    const text = '1\tfirst\n22\tsecond row\n333\tthé last\\trow\n';
    const bytes = Buffer.from(text);
    for (let a = 0; a <= bytes.length; a++)
      for (let b = a; b <= bytes.length; b += 3) {
        const chunks = [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)];
        expect(lastCopyRow(chunks), `${a}/${b}`).toEqual(['333', 'thé last\trow']);
      }
    expect(lastCopyRow([Buffer.from('9\tonly\n')])).toEqual(['9', 'only']);
    expect(lastCopyRow([Buffer.alloc(0)])).toBeUndefined();
  });
});
