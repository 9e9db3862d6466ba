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
});
