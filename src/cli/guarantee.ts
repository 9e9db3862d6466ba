import type { Endpoint } from '../config/endpoint.js';
import type { RunMode } from '../core/route.js';

/** What a route promises about delivery, as the dry run and the summary say it (issue 28, 4). */
export interface Guarantee {
  /** `exactly once`; `at least once, idempotent` where a re-sent message changes nothing; `at least once`. */
  mode: string;
  /** Why, in a sentence: what a stop re-sends, and what the sink does with it. */
  why: string;
}

/** What a stop at any moment (SIGKILL included) leaves to be sent again, by source. */
function resent(src: Endpoint, command: RunMode): string {
  const f = src.fields;
  if (src.spec.name === 'http') return 'a request is answered 2xx only once its messages are durable in the sink; a client that retries after a lost answer sends them again';
  if (src.spec.name === 'ndjson') return command === 'copy' ? 'no position is kept: a re-run reads the input from its first line' : 'a stop re-reads the lines not yet confirmed';
  if (src.spec.name === 'change-capture' || src.given.has('publication')) return "a stop re-sends the changes after the slot's confirmed position (same message ids)";
  if (f.delete_after_read === true) return 'rows are deleted once the sink confirmed them; a stop re-sends those it had not';
  if (src.given.has('cursor_id')) return 'a stop re-sends the rows after the last saved position (same message ids)';
  return 'no position is kept: a re-run reads the table from its first row';
}

/** Whether the sink writes a re-sent message over itself (a keyed upsert): then nothing is duplicated. */
function idempotentSink(src: Endpoint, dst: Endpoint): boolean {
  if (dst.spec.name !== 'database' || dst.fields.columns !== 'auto') return false;
  // The change-capture endpoint's tables into a database: each table's primary key is its key (cli/change-routes.ts).
  return dst.given.has('key') || (src.spec.name === 'change-capture' && !dst.given.has('key'));
}

/** What the sink does with what is sent again. */
function sinkEffect(src: Endpoint, dst: Endpoint): string {
  if (idempotentSink(src, dst)) return `the sink writes a re-sent row over itself by key${dst.given.has('key') ? ` (${String(dst.fields.key)})` : " (each table's primary key)"}: each row lands once`;
  if (dst.spec.name === 'database') return 'the sink inserts re-sent rows again (or a unique key refuses them: exit 4); give columns=auto&key=<primary key> to write them over';
  if (dst.spec.name === 'http') return 'each request carries the message id as Idempotency-Key, so a peer that deduplicates by it takes each message once';
  return dst.stdio ? 're-sent lines are printed again' : 're-sent lines are appended again (a torn last line is moved aside first)';
}

/** Where the sink keeps the route's position with its rows (issue 28), or undefined when it keeps none. */
function keptInSink(src: Endpoint, dst: Endpoint): string | undefined {
  const cursor = src.spec.name === 'database' && src.given.has('cursor_id') && src.fields.cursor_column !== undefined && src.fields.delete_after_read !== true && !src.given.has('publication');
  const changes = src.given.has('publication') || src.spec.name === 'change-capture';
  // Several captured tables go into their sink tables in transactions of their own: no one position stands for a batch.
  const several = src.spec.name === 'change-capture' && /[,*]/.test(String(src.fields.tables ?? ''));
  if (!cursor && !changes) return undefined;
  const stop = ': a stop at any moment (kill -9 included) loses no row and repeats none';
  const copy = changes && src.fields.snapshot !== 'never' ? '; but an initial copy stopped part-way is read again from where it stopped, and the changes made since the slot are sent again (a keyed mirror writes them over)' : '';
  if (dst.spec.name === 'database') {
    if (dst.fields.lookup_query !== undefined || dst.fields.position_table === 'none' || several || (dst.fields.table === undefined && !changes)) return undefined;
    return `the position commits in the sink's transaction with the rows it stands for (table ${String(dst.fields.position_table)}), and a run resumes from it${stop}${copy}`;
  }
  if (dst.spec.name === 'ndjson' && !dst.stdio) return `each batch is synced, then the file's length and the position are written beside it (<file>.bridge-position); a run cuts the file back to that length and resumes from that position${stop}${copy}`;
  return undefined;
}

export function guaranteeOf(command: RunMode, src: Endpoint, dst: Endpoint): Guarantee {
  const kept = keptInSink(src, dst);
  if (kept) return { mode: 'exactly once', why: kept };
  return { mode: idempotentSink(src, dst) ? 'at least once, idempotent' : 'at least once', why: `${resent(src, command)}; ${sinkEffect(src, dst)}` };
}
