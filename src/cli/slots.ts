import type { Command } from 'commander';
import { redact } from '../config/redact.js';
import { replicationSlots } from '../connectors/registry.js';
import { BridgeError, EXIT } from '../core/errors.js';

const fail = (text: string, code: number): never => {
  process.stderr.write(redact(`bridge: error: ${text}`) + '\n');
  process.exit(code);
};

function target(url: string | undefined): { url: string; kind: 'postgres' | 'binlog' } {
  const t = url ?? process.env.DATABASE_URL;
  const binlog = t !== undefined && /^(mariadb|mysql)(\+cdc)?:\/\//.test(t);
  if (!t || (!binlog && !/^postgres(ql)?(\+cdc)?:\/\//.test(t)))
    return fail('bridge slots needs a PostgreSQL URL (postgres://user@host/db) or a MariaDB/MySQL one (mariadb://user@host/db: its binlog captures), as an argument or in DATABASE_URL', EXIT.config);
  // The change-capture endpoint's URL names the same server; its query holds capture fields, not connection ones.
  const plain = /^[a-z]+\+cdc:/.test(t) ? t.replace(/\+cdc:/, ':').replace(/\?.*$/, '') : t;
  return { url: plain, kind: binlog ? 'binlog' : 'postgres' };
}

/** Runs a slot action, turning its error into the one-line message and exit code of its kind. */
async function guarded<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (e) {
    if (e instanceof BridgeError) return fail(e.message, e.exitCode);
    throw e;
  }
}

/** Every replication slot of the server: whether it is in use, and how much WAL it keeps. */
async function list(url: string | undefined, json: boolean): Promise<void> {
  const t = target(url);
  const { listSlots } = await replicationSlots(t.kind);
  const slots = await guarded(() => listSlots(t.url));
  if (json) {
    for (const s of slots) process.stdout.write(JSON.stringify({ ...s, holds_bytes: s.holds_bytes === null ? null : Number(s.holds_bytes) }) + '\n');
    return;
  }
  if (slots.length === 0) return void process.stdout.write(t.kind === 'binlog' ? 'no binlog captures in this database\n' : 'no replication slots\n');
  const rows = slots.map((s) => [s.slot_name, s.plugin === 'binlog' ? '-' : s.active_pid ? `active (pid ${s.active_pid})` : 'inactive', s.database ?? '', s.plugin ?? '', s.temporary ? 'temporary' : '', s.wal_status ?? '', s.holds ?? '', s.confirmed_flush_lsn ?? '', s.initial_copy ? `copying ${s.initial_copy}` : '']);
  const head = ['slot', 'state', 'database', 'plugin', '', 'wal_status', 'WAL held', 'confirmed', 'initial copy'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  for (const line of [head, ...rows]) process.stdout.write(line.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd() + '\n');
}

/** Drops a slot (the WAL it kept can then be recycled); an active slot is refused. */
async function drop(name: string, url: string | undefined): Promise<void> {
  const t = target(url);
  const { dropSlot } = await replicationSlots(t.kind);
  await guarded(() => dropSlot(t.url, name));
  process.stderr.write(`bridge slots: dropped ${name}\n`);
}

/** `bridge slots [url]` and `bridge slots drop <name> [url]`: the slots change capture leaves behind. */
export function slotsCommand(program: Command): void {
  program
    .command('slots')
    .description('list PostgreSQL replication slots (in use, WAL held) or a MariaDB/MySQL database\'s binlog captures (position, binlog behind), or drop one: bridge slots drop <name> [url]')
    .argument('[args...]', '[url] to list; drop <name> [url] to drop (url defaults to DATABASE_URL)')
    .option('--format <text|json>', 'output format of the list', 'text')
    .action(async (args: string[], o: { format: string }) => {
      if (args[0] === 'drop') {
        if (!args[1]) return fail('bridge slots drop needs the slot name: bridge slots drop <name> [url]', EXIT.config);
        return drop(args[1], args[2]);
      }
      if (args.length > 1) return fail('bridge slots takes one URL (or: bridge slots drop <name> [url])', EXIT.config);
      return list(args[0], o.format === 'json');
    });
}
