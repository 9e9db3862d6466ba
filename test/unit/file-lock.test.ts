import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileCheckpointStore } from '../../src/checkpoint/file-store.js';

const dir = mkdtempSync(path.join(tmpdir(), 'bridge-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the checkpoint file lock after a kill', () => {
  it('an empty lock (a tail killed between creating it and writing its pid) is taken over, not waited on until the run fails', async () => {
    const file = path.join(dir, 'empty.json');
    writeFileSync(`${file}.lock`, '');
    const store = new FileCheckpointStore(file);
    await store.open();
    await store.put('job', '{"value":"int:1"}');
    expect(await store.load('job')).toBe('{"value":"int:1"}');
    expect(readdirSync(dir).filter((f) => f.startsWith('empty.json.'))).toEqual([]);
  });

  it('a lock naming a dead pid is taken over at once; a live holder is waited for', async () => {
    const file = path.join(dir, 'dead.json');
    writeFileSync(`${file}.lock`, '2147483646');
    const store = new FileCheckpointStore(file);
    await store.put('job', '{"value":"int:2"}');
    expect(await store.load('job')).toBe('{"value":"int:2"}');
    writeFileSync(`${file}.lock`, String(process.pid));
    let done = false;
    const p = store.put('job', '{"value":"int:3"}').then(() => (done = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    rmSync(`${file}.lock`);
    await p;
    expect(await store.load('job')).toBe('{"value":"int:3"}');
  });
});
