import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { binlogSuite } from '../helpers/binlog.js';
import { bridge, tempDir } from '../helpers/bridge.js';

/**
 * Issue 27, done means: `bridge slots` shows what the change-capture endpoint keeps. A binlog
 * capture has no slot on the server; its position (and its initial copy's progress) lives under
 * cdc:<slot_name> in the source's checkpoint table: listed with how much binlog was written since,
 * and dropped by name (the next run starts again with its snapshot).
 */
const dir = tempDir();
const { skip, s } = await binlogSuite('binlog-slots', dir);

describe.skipIf(skip !== undefined)('bridge slots on a MariaDB URL', () => {
  it('lists the binlog capture a run kept (position, binlog written since, kept), and drops it by name', async () => {
    await s.my.exec('DROP TABLE IF EXISTS bl_slots, bridge_cursors_bl_slots; CREATE TABLE bl_slots (id int PRIMARY KEY, v text); INSERT INTO bl_slots VALUES (1, \'a\'), (2, \'b\')');
    const mirror = `sqlite://${path.join(dir, 'm.db')}?columns=auto&auto_create_table=true`;
    const run = await bridge(['copy', s.my.cdc('tables=bl_slots&slot_name=bl_keep'), mirror, '--progress', 'none']);
    expect(run.exitCode, run.stderr).toBe(0);
    await s.my.exec("INSERT INTO bl_slots VALUES (3, 'c')");
    const url = s.my.plain('').replace(/\?$/, '');
    const listed = await bridge(['slots', url, '--format', 'json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const row = listed.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((x) => x.slot_name === 'bl_keep');
    expect(row).toMatchObject({ plugin: 'binlog', wal_status: 'kept', initial_copy: null });
    expect(String(row!.confirmed_flush_lsn)).toMatch(/^gtid \d+-\d+-\d+/);
    expect(Number(row!.holds_bytes)).toBeGreaterThan(0);
    expect((await bridge(['slots', url.replace(/^mariadb:/, 'mariadb+cdc:')])).stdout).toMatch(/bl_keep\s+-\s+test\s+binlog\s+kept/);
    const dropped = await bridge(['slots', 'drop', 'bl_keep', url]);
    expect(dropped.exitCode, dropped.stderr).toBe(0);
    expect((await bridge(['slots', url, '--format', 'json'])).stdout).not.toContain('bl_keep');
    const again = await bridge(['slots', 'drop', 'bl_keep', url]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/no binlog capture named bl_keep/);
  });
});
