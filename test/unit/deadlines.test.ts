import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../src/connectors/http/deadlines.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Deadlines: request timeouts of one length under one timer', () => {
  it('each deadline fires once its time passed, in order; a cleared one never fires', async () => {
    const d = new Deadlines(60);
    const fired: string[] = [];
    const a = d.add(() => fired.push('a'));
    await sleep(30);
    const b = d.add(() => fired.push('b'));
    d.add(() => fired.push('c'));
    d.clear(b);
    await sleep(45);
    expect(fired).toEqual(['a']);
    await sleep(40);
    expect(fired).toEqual(['a', 'c']);
    d.clear(a); // already fired: nothing happens
    expect(fired).toEqual(['a', 'c']);
  });

  it('with every deadline cleared no timer is left (a stopped listener exits at once)', async () => {
    const d = new Deadlines(60_000);
    const handles = () => (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = handles();
    const x = d.add(() => {});
    const y = d.add(() => {});
    expect(handles()).toBe(before + 1);
    d.clear(x);
    expect(handles()).toBe(before + 1);
    d.clear(y);
    expect(handles()).toBe(before);
  });

  it('holds no more than the deadlines still pending when requests finish in order', () => {
    const d = new Deadlines(60_000);
    for (let i = 0; i < 10_000; i++) d.clear(d.add(() => {}));
    const pending = d.add(() => {});
    expect((d as unknown as { list: unknown[]; head: number }).list.length - (d as unknown as { head: number }).head).toBe(1);
    d.clear(pending);
  });
});
