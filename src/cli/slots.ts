import type { Command } from 'commander';
import { redact } from '../config/redact.js';
import { EXIT } from '../core/errors.js';

interface SlotRow {
  slot_name: string;
  plugin: string | null;
  database: string | null;
  active_pid: number | null;
  temporary: boolean;
  wal_status: string | null;
  holds: string | null;
  holds_bytes: string | null;
  confirmed_flush_lsn: string | null;
}

const fail = (text: string, code: number): never => {
  process.stderr.write(redact(`bridge: error: ${text}`) + '\n');
  process.exit(code);
};

async function connect(url: string | undefined) {
  const target = url ?? process.env.DATABASE_URL;
  if (!target || !/^postgres(ql)?:\/\//.test(target)) return fail('bridge slots needs a PostgreSQL URL (postgres://user@host/db), as an argument or in DATABASE_URL', EXIT.config);
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: target, application_name: 'bridge' });
  try {
    await client.connect();
  } catch (e) {
    return fail(`cannot connect to PostgreSQL: ${(e as Error).message}`, EXIT.connect);
  }
  return client;
}

/** Every replication slot of the server: whether it is in use, and how much WAL it keeps. */
async function list(url: string | undefined, json: boolean): Promise<void> {
  const client = await connect(url);
  const r = await client.query<SlotRow>(
    `SELECT slot_name, plugin, database, active_pid, temporary, wal_status,
            pg_size_pretty((pg_current_wal_lsn() - restart_lsn)::bigint) AS holds, (pg_current_wal_lsn() - restart_lsn)::bigint::text AS holds_bytes,
            confirmed_flush_lsn::text
       FROM pg_replication_slots ORDER BY slot_name`,
  );
  await client.end();
  if (json) {
    for (const s of r.rows) process.stdout.write(JSON.stringify({ ...s, holds_bytes: s.holds_bytes === null ? null : Number(s.holds_bytes) }) + '\n');
    return;
  }
  if (r.rows.length === 0) return void process.stdout.write('no replication slots\n');
  const rows = r.rows.map((s) => [s.slot_name, s.active_pid ? `active (pid ${s.active_pid})` : 'inactive', s.database ?? '', s.plugin ?? '', s.temporary ? 'temporary' : '', s.wal_status ?? '', s.holds ?? '', s.confirmed_flush_lsn ?? '']);
  const head = ['slot', 'state', 'database', 'plugin', '', 'wal_status', 'WAL held', 'confirmed'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  for (const line of [head, ...rows]) process.stdout.write(line.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd() + '\n');
}

/** Drops a slot (the WAL it kept can then be recycled); an active slot is refused by the server. */
async function drop(name: string, url: string | undefined): Promise<void> {
  const client = await connect(url);
  const found = await client.query('SELECT active_pid FROM pg_replication_slots WHERE slot_name = $1', [name]);
  if (found.rows.length === 0) {
    await client.end();
    return fail(`no replication slot named ${name} (bridge slots lists them)`, EXIT.config);
  }
  const pid = (found.rows[0] as { active_pid: number | null }).active_pid;
  if (pid) {
    await client.end();
    return fail(`replication slot ${name} is in use by server process ${pid}: stop the tail that streams from it first`, EXIT.config);
  }
  await client.query('SELECT pg_drop_replication_slot($1)', [name]);
  await client.end();
  process.stderr.write(`bridge slots: dropped ${name}\n`);
}

/** `bridge slots [url]` and `bridge slots drop <name> [url]`: the slots change capture leaves behind. */
export function slotsCommand(program: Command): void {
  program
    .command('slots')
    .description('list PostgreSQL replication slots (in use, WAL held), or drop one: bridge slots drop <name> [url]')
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
