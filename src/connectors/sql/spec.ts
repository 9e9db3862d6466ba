import type { ConnectorSpec, FieldSpec } from '../../config/fields.js';
import { TLS_FIELDS } from '../../config/tls-spec.js';
import { databaseSchemes, fileSchemes, kindsWith } from '../kinds.js';

const BOTH = ['consumer', 'publisher'] as const;
const CONSUMER = ['consumer'] as const;
const PUBLISHER = ['publisher'] as const;

/** Contract §2.1: every field of the database connector. */
export const DATABASE_FIELDS: readonly FieldSpec[] = [
  { name: 'table', type: 'string', roles: BOTH, description: 'Table to read or write; `schema.table` is accepted. A name is taken as written (case kept) and always quoted: `Order%20Details`, `order-items`, `O\'Brien` and `Straße` work; a name holding a dot, comma, `*`, double quote or control character, or a space at either end, is a config error (one a `*` matches is named, to `--exclude`). Required (on a sink that takes a source\'s table list, left out). On a source, a list copies several tables, each into the sink table of the same name: `a,b`, `*`, `schema.*`, `log_*`.' },
  { name: 'username', type: 'string', roles: BOTH, description: 'User name; takes precedence over the one in the URL.' },
  { name: 'password', type: 'string', roles: BOTH, secret: true, description: 'Password; takes precedence over the one in the URL. Never printed.' },
  {
    name: 'tls',
    type: 'object',
    roles: BOTH,
    kinds: kindsWith('tls'),
    fields: TLS_FIELDS,
    description: 'TLS for the connection, as a JSON object: {"required":true,"ca_file":"ca.pem",...}. Not for SQLite.',
  },
  { name: 'shared', type: 'boolean', default: true, roles: BOTH, description: 'Share one pool between the endpoints of a run that name the same database; false forces a dedicated pool.' },
  { name: 'max_connections', type: 'integer', default: 10, min: 1, max: 10000, roles: BOTH, description: 'Maximum pool size.' },
  { name: 'min_connections', type: 'integer', default: 0, min: 0, max: 10000, roles: BOTH, description: 'Connections opened at start and kept in the pool.' },
  { name: 'acquire_timeout_ms', type: 'integer', default: 30000, min: 1, roles: BOTH, description: 'How long to wait for a pooled connection (ms) before failing.' },
  { name: 'idle_timeout_ms', type: 'integer', default: 600000, min: 1, roles: BOTH, description: 'Close connections idle for longer than this (ms), down to min_connections.' },
  { name: 'max_lifetime_ms', type: 'integer', default: 1800000, min: 1, roles: BOTH, description: 'Close connections older than this (ms) when they are next released.' },
  { name: 'test_before_acquire', type: 'boolean', default: false, roles: BOTH, description: 'Ping each pooled connection before handing it out (one round-trip per acquire).' },
  {
    name: 'auto_create_table',
    type: 'boolean',
    default: false,
    roles: PUBLISHER,
    description:
      "Create the table if missing: with columns=auto, a typed copy of the source table's columns (same or exact-fit types, primary key and unique keys; see --dry-run), else the queue shape (id, payload, locked_until, created_at) with an index on locked_until. A mirror bridge created this way follows its captured table's column changes.",
  },
  {
    name: 'bulk_copy',
    type: 'boolean',
    default: false,
    roles: PUBLISHER,
    kinds: kindsWith('bulk_copy'),
    description: 'PostgreSQL only: load batches through COPY FROM STDIN instead of multi-row INSERT. Needs a token insert_query.',
  },
  {
    name: 'columns',
    type: 'enum',
    values: ['auto'],
    roles: PUBLISHER,
    description: 'auto: write each JSON field of the payload into the column of the same name, converted to its type exactly or rejected (naming the field). A missing table is created with auto_create_table=true, else refused.',
  },
  { name: 'extra_column', type: 'string', roles: PUBLISHER, description: 'With columns=auto: column that takes the unmatched payload fields as one JSON object.' },
  { name: 'key', type: 'string', roles: PUBLISHER, description: 'With columns=auto: key column(s), comma-separated; a row with the same key is updated.' },
  {
    name: 'insert_query',
    type: 'string',
    roles: PUBLISHER,
    description: 'Custom INSERT: `?` binds the whole payload; ${payload:field} and ${metadata:key} bind single values.',
  },
  {
    name: 'position_table',
    type: 'string',
    default: 'bridge_positions',
    roles: PUBLISHER,
    description:
      'Exactly once: where the sink keeps the position of each route that has one (cursor_id, change capture), written in the same transaction as the rows it stands for; created on first use in the schema of table. none = keep no position in the sink (at least once, as the source checkpoint alone gives).',
  },
  { name: 'lookup_query', type: 'string', roles: PUBLISHER, description: 'SELECT whose first row answers each message; IN (${payload:id}) answers a batch in one query.' },
  {
    name: 'select_query',
    type: 'string',
    roles: CONSUMER,
    kinds: kindsWith('select_query'),
    description: 'Custom SELECT run in a transaction per batch ($1 on PostgreSQL, @p1 on SQL Server = batch size); the transaction commits after the sink confirmed.',
  },
  { name: 'delete_after_read', type: 'boolean', default: false, roles: CONSUMER, description: 'Delete rows once the sink confirmed them; two readers never get the same row.' },
  { name: 'cursor_column', type: 'string', roles: CONSUMER, description: 'Read without deleting or locking, paged by this ascending column; ties are exact.' },
  { name: 'cursor_id', type: 'string', roles: CONSUMER, description: 'Name under which the cursor position is persisted, so a restart resumes.' },
  {
    name: 'partition',
    type: 'string',
    roles: CONSUMER,
    description: 'k/N: read only the rows whose primary key hashes to part k of N (0 <= k < N), so N processes share one table; the union of the N parts is the table. With cursor_id, each part keeps its position as <cursor_id>.part<k>of<N>.',
  },
  {
    name: 'key_range',
    type: 'string',
    roles: CONSUMER,
    description: 'lo..hi: read only the rows with lo <= key < hi (a primary key of one integer column; either end may be left out). What --parallel N gives each of its N connections.',
  },
  {
    name: 'cursor_lag_ms',
    type: 'integer',
    default: 0,
    min: 0,
    roles: CONSUMER,
    description:
      "How long rows may arrive below what was read, beyond the transactions bridge waits for: for cursor values set by clients' clocks (updated_at written by the application). Rows older than this when they commit can be missed.",
  },
  {
    name: 'checkpoint_store',
    type: 'string',
    roles: CONSUMER,
    secret: true,
    description: 'Where cursor_id positions live: absent = table bridge_cursors_<table> in the source; a bare name or /<name> = that table; file://<path> = a local JSON file. Never printed.',
  },
  { name: 'source_metadata', type: 'boolean', default: false, roles: CONSUMER, description: 'Add bridge.src.* position metadata to each message; cursor_column must be a unique integer column.' },
  {
    name: 'timestamps',
    type: 'enum',
    values: ['text', 'rfc3339'],
    default: 'text',
    roles: CONSUMER,
    kinds: kindsWith('timestamps'),
    description: "PostgreSQL only: render timestamp columns as the database's text, or as RFC 3339 in UTC with every fractional digit.",
  },
  { name: 'polling_interval_ms', type: 'integer', default: 100, min: 1, roles: CONSUMER, description: 'Wait between polls of a drained source (ms).' },
  {
    name: 'max_polling_interval_ms',
    type: 'integer',
    min: 1,
    defaultText: 'none (constant interval)',
    roles: CONSUMER,
    description: 'When set, the wait doubles from polling_interval_ms up to this while drained, and resets when rows arrive.',
  },
  { name: 'publication', type: 'string', roles: CONSUMER, kinds: kindsWith('change_capture'), description: 'PostgreSQL only: stream inserts, updates and deletes of this publication (logical replication).' },
  { name: 'slot_name', type: 'string', default: 'bridge_slot', roles: CONSUMER, kinds: kindsWith('change_capture'), description: 'Replication slot of change capture; created if missing.' },
  {
    name: 'temporary_slot',
    type: 'boolean',
    default: false,
    roles: CONSUMER,
    kinds: kindsWith('change_capture'),
    description: 'PostgreSQL change capture: a slot that lives only as long as the run (no WAL kept after it; no resume: a new run starts from the current position).',
  },
  {
    name: 'snapshot',
    type: 'enum',
    values: ['initial', 'never', 'only'],
    default: 'initial',
    roles: CONSUMER,
    kinds: kindsWith('change_capture'),
    description:
      "PostgreSQL change capture: initial = a new slot's run first copies the rows that exist, read in the snapshot the slot exports (no gap, no overlap), then streams; a stopped copy resumes after its last confirmed key (progress in checkpoint_store, by default the source's bridge_cursors_<table>). never = changes only. only = one consistent copy of the table as change messages, then stop (no slot).",
  },
  {
    name: 'create_publication',
    type: 'boolean',
    default: false,
    roles: CONSUMER,
    kinds: kindsWith('change_capture'),
    description: 'Create the publication for the configured table if it is missing (needs table-owner privilege).',
  },
];

export const DATABASE_SPEC: ConnectorSpec = {
  name: 'database',
  description: 'Reads table rows as messages (consumer) or writes messages as rows (publisher).',
  schemes: databaseSchemes(),
  pathSchemes: fileSchemes(),
  fields: DATABASE_FIELDS,
};
