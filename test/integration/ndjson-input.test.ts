import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridge, tempDir } from '../helpers/bridge.js';

/** NDJSON files as strangers' tools write them. */
const dir = tempDir();

describe('NDJSON input', () => {
  it('a file saved with a UTF-8 byte order mark and CRLF line ends (Windows tools): every line is read, the first one too', async () => {
    const file = path.join(dir, 'bom.ndjson');
    writeFileSync(file, '\uFEFF{"a":1,"s":"x"}\r\n\r\n{"a":2}\r\n   \n{"a":3}');
    const r = await bridge(['copy', `file://${file}`, '-', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"a":1,"s":"x"}\n{"a":2}\n{"a":3}');
  });

  it('from stdin as well', async () => {
    const r = await bridge(['copy', '-', '-', '--progress', 'none'], { input: '\uFEFF{"a":1}\n{"a":2}\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"a":1}\n{"a":2}');
  });

  it('a byte order mark inside the file is text of its line: that line is refused, by number', async () => {
    const file = path.join(dir, 'mid.ndjson');
    writeFileSync(file, '{"a":1}\n\uFEFF{"a":2}\n');
    const r = await bridge(['copy', `file://${file}`, '-', '--progress', 'none']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/line 2 of .*mid\.ndjson is not valid JSON/);
  });

  it('a line whose bytes are not UTF-8 (Latin-1 "café") is refused by number with its bytes; the lines before it are copied, nothing replaced by U+FFFD', async () => {
    const file = path.join(dir, 'latin1.ndjson');
    writeFileSync(file, Buffer.concat([Buffer.from('{"a":1}\n{"s":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"a":3}\n')]));
    const r = await bridge(['copy', `file://${file}`, '-', '--progress', 'none']);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/line 2 of .*latin1\.ndjson is not UTF-8 \(bytes e9 22 7d/);
    expect(r.stdout).toBe('{"a":1}');
  });

  it('the same from stdin; a real U+FFFD (bytes ef bf bd) is text like any other', async () => {
    const bad = await bridge(['copy', '-', '-', '--progress', 'none'], { input: Buffer.from([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]) });
    expect(bad.exitCode).toBe(4);
    expect(bad.stderr).toMatch(/line 1 of stdin is not UTF-8/);
    const file = path.join(dir, 'fffd.ndjson');
    writeFileSync(file, '{"s":"\uFFFD and \u00e9"}\n');
    const ok = await bridge(['copy', `file://${file}`, '-', '--progress', 'none']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ s: '\uFFFD and \u00e9' });
  });
});
