import type { ConnectorSpec, FieldSpec } from '../../config/fields.js';
import { DATABASE_FIELDS } from '../sql/spec.js';

const CONSUMER = ['consumer'] as const;
const PG = ['postgres'];
const BINLOG = ['mariadb', 'mysql'];

/** The connection fields, as on a database URL. */
const CONNECTION = ['username', 'password', 'tls'].map((n) => ({ ...DATABASE_FIELDS.find((f) => f.name === n)!, roles: CONSUMER }));

/** The dedicated change-capture endpoint (issue 27): full control over what is captured and how. */
export const CHANGES_FIELDS: readonly FieldSpec[] = [
  {
    name: 'tables',
    type: 'string',
    roles: CONSUMER,
    description:
      'Tables to capture, through one slot (PostgreSQL) or one binlog reader: `orders`, `orders,items`, `schema.*` or `*` (every table with a primary key or replica identity). Each table\'s changes go into the sink table of the same name (leave the sink\'s table out), or into one stream with bridge.table in the metadata (NDJSON, HTTP). Required.',
  },
  {
    name: 'operations',
    type: 'string',
    default: 'insert,update,delete,truncate',
    roles: CONSUMER,
    description: 'Which changes become messages, comma-separated: insert, update, delete, truncate. The others are skipped (the position still moves past them).',
  },
  {
    name: 'snapshot',
    type: 'enum',
    values: ['initial', 'never', 'only'],
    default: 'initial',
    roles: CONSUMER,
    description:
      "initial = the rows that exist first (read in the snapshot paired with the stream's start: no gap, no overlap; a stopped copy resumes by table and key), then the changes; never = changes only; only = one consistent copy of the tables as insert messages, then stop.",
  },
  {
    name: 'slot_name',
    type: 'string',
    default: 'bridge_slot',
    roles: CONSUMER,
    description: 'PostgreSQL: the replication slot (created if missing). MariaDB/MySQL: the name under which the binlog position is kept in checkpoint_store. Also names the initial copy\'s progress (`cdc:<slot_name>`).',
  },
  {
    name: 'publication',
    type: 'string',
    roles: CONSUMER,
    kinds: PG,
    defaultText: 'the slot name',
    description: 'PostgreSQL: the publication the slot decodes with. Created for the listed tables if missing (unless create_publication=false); an existing one must publish every listed table.',
  },
  { name: 'create_publication', type: 'boolean', default: true, roles: CONSUMER, kinds: PG, description: 'PostgreSQL: create the publication if it is missing (needs ownership of the tables).' },
  {
    name: 'temporary_slot',
    type: 'boolean',
    default: false,
    roles: CONSUMER,
    kinds: PG,
    description: 'PostgreSQL: a slot that lives only as long as the run (no WAL kept after it; no resume).',
  },
  {
    name: 'drop_slot',
    type: 'boolean',
    default: false,
    roles: CONSUMER,
    kinds: PG,
    description: 'PostgreSQL: on a clean stop (drained copy, SIGINT/SIGTERM), drop the slot and the publication this run created, so no WAL is kept; the next run starts again with its snapshot. A failed run keeps them (it resumes).',
  },
  {
    name: 'heartbeat_interval_ms',
    type: 'integer',
    default: 10000,
    min: 100,
    max: 3600000,
    roles: CONSUMER,
    description: 'How often the reader tells the server where it stands while changes flow (PostgreSQL standby status; MariaDB/MySQL binlog heartbeat period). A quiet stream is confirmed every second regardless.',
  },
  {
    name: 'start_position',
    type: 'string',
    roles: CONSUMER,
    description:
      'Where streaming starts, with snapshot=never: PostgreSQL an LSN (`0/16B3748`; changes committed before it are skipped; it cannot be before what the slot confirmed); MariaDB a GTID (`0-1-42`) or `file:position`. Absent: where the slot (or the kept position) stands, or now.',
  },
  { name: 'server_id', type: 'integer', min: 1, max: 4294967295, roles: CONSUMER, kinds: BINLOG, defaultText: 'derived from slot_name', description: 'MariaDB/MySQL: the replica server id the binlog reader registers with; unique among the server\'s replicas.' },
  {
    name: 'checkpoint_store',
    type: 'string',
    roles: CONSUMER,
    secret: true,
    description: "Where the initial copy's progress (and MariaDB/MySQL's binlog position) is kept: absent = table bridge_cursors_<first table> in the source; a bare name = that table; file://<path> = a local JSON file. Never printed.",
  },
  { name: 'source_metadata', type: 'boolean', default: false, roles: CONSUMER, description: 'Add the position to each message: bridge.src.pg_lsn (PostgreSQL), bridge.src.binlog_file / binlog_pos / gtid (MariaDB/MySQL).' },
  { ...DATABASE_FIELDS.find((f) => f.name === 'timestamps')!, roles: CONSUMER, kinds: PG },
  ...CONNECTION,
];

export const CHANGES_SPEC: ConnectorSpec = {
  name: 'change-capture',
  description: 'Streams the row changes of one or more tables (PostgreSQL logical replication, MariaDB/MySQL binlog), after an initial snapshot of their rows (consumer only).',
  schemes: { 'postgres+cdc': 'postgres', 'postgresql+cdc': 'postgres', 'mariadb+cdc': 'mariadb', 'mysql+cdc': 'mysql' },
  fields: CHANGES_FIELDS,
};
