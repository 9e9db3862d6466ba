import { describe, expect, it } from 'vitest';
import { formatId, newId, newIdHex } from '../../src/core/ids.js';
import { Message } from '../../src/core/message.js';

describe('message ids', () => {
  it('new ids are UUIDv7: the time in the first 48 bits, version 7, variant 10, all different', () => {
    const ids = Array.from({ length: 10_000 }, () => newIdHex());
    expect(new Set(ids).size).toBe(ids.length);
    for (const h of ids.slice(0, 100)) {
      expect(h).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      expect(Math.abs(Date.now() - parseInt(h.slice(0, 12), 16))).toBeLessThan(5000);
    }
    expect(formatId(newId())).toMatch(/^[0-9a-f]{12}7/);
  });

  it("a message's hex id and its number are the same id, whichever is asked first", () => {
    const a = new Message('{}');
    const hex = a.idHex;
    expect(formatId(a.id)).toBe(hex);
    const b = new Message('{}');
    const id = b.id;
    expect(b.idHex).toBe(formatId(id));
    expect(new Message('{}', undefined, undefined, 255n).idHex).toBe('000000000000000000000000000000ff');
  });
});
