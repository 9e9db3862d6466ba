import { describe, expect, it } from 'vitest';
import { advanceGtid, compareFilePos, formatPosition, parseStartPosition, reached } from '../../src/connectors/mysql/binlog-position.js';
import { defaultServerId } from '../../src/connectors/mysql/binlog-reader.js';

/** Binlog positions (issue 27, 5): what start_position accepts, and how a kept MariaDB GTID position moves. */
describe('binlog positions', () => {
  it('start_position: a MariaDB GTID position or file:pos; anything else names both forms', () => {
    expect(parseStartPosition('0-1-42')).toEqual({ gtid: '0-1-42' });
    expect(parseStartPosition('0-1-42,1-2-7')).toEqual({ gtid: '0-1-42,1-2-7' });
    expect(parseStartPosition('mariadb-bin.000003:1234')).toEqual({ file: 'mariadb-bin.000003', pos: 1234 });
    expect(() => parseStartPosition('0/16B3748')).toThrow(/neither a MariaDB GTID \(e\.g\. 0-1-42\) nor a binlog file:position/);
  });

  it('a commit replaces its domain in the GTID position and keeps the others, domains in order', () => {
    expect(advanceGtid(undefined, '0-1-5')).toBe('0-1-5');
    expect(advanceGtid('0-1-5', '0-1-6')).toBe('0-1-6');
    expect(advanceGtid('0-1-5,2-1-9', '1-3-1')).toBe('0-1-5,1-3-1,2-1-9');
    // A failover: the domain's entry takes the new server's id.
    expect(advanceGtid('0-1-5', '0-2-6')).toBe('0-2-6');
  });

  it('file:pos order across rotated files; reached by the same GTID position or a later file:pos', () => {
    expect(compareFilePos({ file: 'b.000002', pos: 4 }, { file: 'b.000001', pos: 900 })).toBeGreaterThan(0);
    expect(compareFilePos({ file: 'b.000001', pos: 4 }, { file: 'b.000001', pos: 900 })).toBeLessThan(0);
    expect(reached({ gtid: '0-1-9' }, { gtid: '0-1-9', file: 'b.000001', pos: 5 })).toBe(true);
    expect(reached({ file: 'b.000001', pos: 5 }, { gtid: '0-1-9', file: 'b.000001', pos: 5 })).toBe(true);
    expect(reached({ gtid: '0-1-8' }, { gtid: '0-1-9' })).toBe(false);
    expect(formatPosition({ gtid: '0-1-9', file: 'b.000001', pos: 5 })).toBe('gtid 0-1-9 (b.000001:5)');
  });

  it('the replica server id comes from the slot name: stable, in the high range, different per name', () => {
    expect(defaultServerId('bridge_slot')).toBe(defaultServerId('bridge_slot'));
    expect(defaultServerId('bridge_slot')).not.toBe(defaultServerId('other'));
    expect(defaultServerId('x')).toBeGreaterThanOrEqual(0x40000000);
    expect(defaultServerId('x')).toBeLessThan(2 ** 32);
  });
});
