import type { Endpoint } from '../../config/endpoint.js';
import { configError } from '../../core/errors.js';
import { kindEntry } from '../kinds.js';
import { parseKeyRange, parsePartition } from './read/partition.js';

const has = (ep: Endpoint, f: string): boolean => ep.given.has(f);

/** Decisions §5: combinations that are config errors, checked before anything connects. */
export function validateDatabaseEndpoint(ep: Endpoint): void {
  const f = ep.fields;
  if (!has(ep, 'table')) throw configError(`the ${ep.kind} ${ep.role === 'consumer' ? 'source' : 'sink'} needs a table: add ?table=<name> to its URL`);
  if ((f.min_connections as number) > (f.max_connections as number)) throw configError('min_connections is larger than max_connections');
  if (ep.role === 'publisher') {
    const tokens = has(ep, 'insert_query') && /\$\{(payload|metadata):/.test(f.insert_query as string);
    if (has(ep, 'key') && !has(ep, 'columns')) throw configError('key needs columns=auto (the upsert maps payload fields to columns)');
    if (has(ep, 'extra_column') && !has(ep, 'columns')) throw configError('extra_column needs columns=auto');
    if (has(ep, 'columns') && has(ep, 'insert_query')) throw configError('columns=auto and insert_query cannot be combined: pick one way of mapping payloads');
    if (f.auto_create_table === true && tokens) throw configError('auto_create_table cannot be combined with a token insert_query: create the table yourself');
    if (f.bulk_copy === true) {
      if (!tokens) throw configError('bulk_copy needs an insert_query with ${payload:…} tokens naming the columns to COPY');
      if (has(ep, 'key')) throw configError('bulk_copy cannot be combined with key: COPY only appends');
      if (has(ep, 'columns')) throw configError('bulk_copy cannot be combined with columns=auto; write the columns as tokens in insert_query');
    }
    if (has(ep, 'lookup_query'))
      for (const other of ['insert_query', 'columns', 'bulk_copy', 'auto_create_table'])
        if (has(ep, other) && ep.fields[other] !== false) throw configError(`lookup_query answers messages instead of writing them; it cannot be combined with ${other}`);
  }
  if (ep.role === 'consumer') {
    if (has(ep, 'cursor_column') && f.delete_after_read === true)
      throw configError('cursor_column and delete_after_read cannot be combined: cursor paging never deletes; pick one');
    if (has(ep, 'select_query')) {
      const q = f.select_query as string;
      const placeholder = kindEntry(ep.kind)?.batchPlaceholder ?? '$1';
      if (!new RegExp(placeholder.replace('$', '\\$') + '(?![0-9])').test(q)) throw configError(`select_query must contain the batch-size placeholder ${placeholder}`);
      if (has(ep, 'cursor_column')) throw configError('select_query and cursor_column cannot be combined: the query decides what is read');
    }
    if (has(ep, 'publication')) {
      for (const other of ['cursor_column', 'delete_after_read', 'select_query', 'cursor_id'])
        if (has(ep, other) && ep.fields[other] !== false)
          throw configError(`publication (change capture) cannot be combined with ${other}: the replication slot keeps the position`);
      if (has(ep, 'checkpoint_store') && (f.snapshot !== 'initial' || f.temporary_slot === true))
        throw configError(`checkpoint_store keeps the progress of change capture's initial copy: with ${f.temporary_slot === true ? 'temporary_slot=true' : `snapshot=${String(f.snapshot)}`} there is none to keep; remove it`);
      for (const other of ['slot_name', 'temporary_slot', 'create_publication'])
        if (f.snapshot === 'only' && has(ep, other)) throw configError(`snapshot=only copies the table once and uses no slot or publication: remove ${other}`);
    } else {
      if (has(ep, 'slot_name')) throw configError('slot_name needs publication (change capture)');
      if (has(ep, 'create_publication')) throw configError('create_publication needs publication');
      if (has(ep, 'temporary_slot')) throw configError('temporary_slot needs publication (change capture)');
      if (has(ep, 'snapshot')) throw configError('snapshot needs publication (change capture): a copy reads the table as it is anyway');
    }
    if (f.source_metadata === true && !has(ep, 'cursor_column') && !has(ep, 'publication')) throw configError('source_metadata needs cursor_column (a unique integer column)');
    if (has(ep, 'partition') && has(ep, 'key_range')) throw configError('partition and key_range cannot be combined: each splits the table its own way');
    for (const field of ['partition', 'key_range'].filter((x) => has(ep, x))) {
      if (field === 'partition') parsePartition(f.partition as string);
      else parseKeyRange(f.key_range as string);
      for (const other of ['select_query', 'delete_after_read', 'publication'])
        if (has(ep, other) && ep.fields[other] !== false)
          throw configError(`${field} cannot be combined with ${other}: it splits a table read by its key (a copy, or a tail with cursor_column)${other === 'delete_after_read' ? '; a queue is already shared by running more readers' : ''}`);
    }
    if (has(ep, 'cursor_id') && !has(ep, 'cursor_column')) throw configError('cursor_id needs cursor_column: only cursor paging has a position to persist');
    if (has(ep, 'cursor_lag_ms') && !has(ep, 'cursor_column')) throw configError('cursor_lag_ms needs cursor_column: it widens cursor paging\'s wait for rows committed late');
    if (has(ep, 'checkpoint_store') && !has(ep, 'cursor_id') && !has(ep, 'publication')) throw configError('checkpoint_store needs cursor_id (the name under which the position is kept)');
    if (has(ep, 'max_polling_interval_ms') && (f.max_polling_interval_ms as number) < (f.polling_interval_ms as number))
      throw configError('max_polling_interval_ms is smaller than polling_interval_ms');
  }
}
