import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileCheckpointStore } from '../../src/checkpoint/file-store.js';
import { alive } from '../../src/checkpoint/lease.js';

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

describe('a holder killed with kill -9 but not yet reaped', () => {
  it('a zombie (a killed process its parent has not reaped, as under a container init that does not reap) holds no lock and no lease', async () => {
    // bash starts a sleep in the background, then becomes a sleep that never reaps it: killed, it stays a zombie.
    const parent = spawn('bash', ['-c', 'sleep 60 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(await new Promise<string>((r) => parent.stdout.once('data', (d: Buffer) => r(String(d).trim()))));
    // Killed before bash has become the sleep, the child is reaped by bash and is no zombie (seen under load).
    for (let i = 0; i < 100 && readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() !== 'sleep'; i++) await new Promise((r) => setTimeout(r, 20));
    process.kill(pid, 'SIGKILL');
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/^\d+ \([^)]*\) Z /);
      expect(alive(pid)).toBe(false);
      const file = path.join(dir, 'zombie.json');
      writeFileSync(`${file}.lock`, String(pid));
      const store = new FileCheckpointStore(file);
      await store.put('job', '{"value":"int:4"}');
      expect(await store.load('job')).toBe('{"value":"int:4"}');
      expect(alive(process.pid)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
