import { PositionMoved, type PendingPosition } from '../sql/position/sink-position.js';
import type { SqlConnection } from '../sql/types.js';
import type { PostgresDialect } from './dialect.js';
import { textLiteral } from './literal.js';

/**
 * The statement that moves a batch's position, sent with the COPY and COMMIT in one simple query
 * (Database.atomicLoad). It fails when its compare-and-set does and returns no rows (a
 * RowDescription inside a COPY's query breaks pg-copy-streams): the UPDATE casts a text naming the
 * failure to int when the route's seq is another (a run that is not the only writer), the INSERT of
 * a route's first position meets a duplicate key. An error of the batch's own rows is none of these
 * (a CHECK that divides by zero was taken for another run). Values inlined as E'' literals.
 */
export function inlinePosition(d: PostgresDialect, p: PendingPosition): string {
  const lit = textLiteral;
  const t = d.table(p.table.name);
  if (p.expectSeq === 0) return `INSERT INTO ${t} (route, last_position, seq, updated_at) VALUES (${lit(p.key)}, ${lit(p.position.text)}, 1, now())`;
  return `UPDATE ${t} SET last_position = ${lit(p.position.text)}, seq = CASE WHEN seq = ${p.expectSeq} THEN seq + 1 ELSE ('${MOVED} ' || seq)::int END, updated_at = now() WHERE route = ${lit(p.key)}`;
}

const MOVED = 'bridge position moved from seq';

/** That statement's failure (its own cast, or a duplicate key of the position table) as PositionMoved; undefined for any other error. */
export function positionMoved(d: PostgresDialect, e: unknown, p: PendingPosition): Error | undefined {
  const err = (e as { cause?: { code?: string; table?: string; message?: string } }).cause ?? (e as { code?: string; table?: string; message?: string });
  const ours = (err.code === '22P02' && String(err.message).includes(MOVED)) || (err.code === '23505' && err.table === d.baseName(p.table.name));
  return ours ? new PositionMoved(`${p.position.route}: seq is no longer ${p.expectSeq}`) : undefined;
}

/** The table's oid: a table made again after a drop is another (a sink's positions are kept per table). */
export async function tableIdentity(d: PostgresDialect, conn: SqlConnection, table: string): Promise<string | undefined> {
  const v = (await conn.query('SELECT to_regclass($1)::oid::text', [d.table(table)])).rows[0]?.[0];
  return v === null || v === undefined ? undefined : `oid ${String(v)}`;
}
