import { expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/config/endpoint.js';
import { specForScheme } from '../../src/connectors/registry.js';
import { guaranteeOf } from '../../src/cli/guarantee.js';

/** Issue 28, 4: the dry run and the summary say which guarantee a route has, and why. */
const g = (command: 'copy' | 'tail' | 'serve', src: string, dst: string) =>
  guaranteeOf(command, resolveEndpoint(src, 'consumer', specForScheme), resolveEndpoint(dst, 'publisher', specForScheme));

it('a cursor with cursor_id into a database or a file is exactly once: the position goes with the rows; none where the sink keeps no position', () => {
  expect(g('tail', 'postgres://h/db?table=t&cursor_column=id&cursor_id=c', 'sqlite://./m.db?table=t&columns=auto')).toEqual({
    mode: 'exactly once',
    why: "the position commits in the sink's transaction with the rows it stands for (table bridge_positions), and a run resumes from it: a stop at any moment (kill -9 included) loses no row and repeats none",
  });
  expect(g('copy', 'mariadb://h/db?table=t&cursor_column=id&cursor_id=c', 'file://./out.ndjson').why).toMatch(/^each batch is synced, then the file's length and the position are written beside it/);
  expect(g('copy', 'mariadb://h/db?table=t&cursor_column=id&cursor_id=c', '-').mode).toBe('at least once');
  expect(g('copy', 'mariadb://h/db?table=t&cursor_column=id&cursor_id=c', 'postgres://h/db?table=t&position_table=none').mode).toBe('at least once');
  expect(g('copy', 'mariadb://h/db?table=t&cursor_column=id&cursor_id=c', 'https://peer/x').mode).toBe('at least once');
});

it('a keyed upsert makes re-delivery idempotent; an append does not, and says what would', () => {
  expect(g('tail', 'postgres://h/db?table=t&cursor_column=id&cursor_id=c', 'sqlite://./m.db?table=t&columns=auto&key=id&position_table=none')).toEqual({
    mode: 'at least once, idempotent',
    why: 'a stop re-sends the rows after the last saved position (same message ids); the sink writes a re-sent row over itself by key (id): each row lands once',
  });
  const append = g('copy', 'postgres://h/db?table=t', 'sqlite://./m.db?table=t');
  expect(append.mode).toBe('at least once');
  expect(append.why).toBe('no position is kept: a re-run reads the table from its first row; the sink inserts re-sent rows again (or a unique key refuses them: exit 4); give columns=auto&key=<primary key> to write them over');
});

it("change capture's tables into a database mirror take each table's primary key; NDJSON and HTTP say what a re-send does", () => {
  expect(g('tail', 'postgres+cdc://h/db?tables=a,b', 'sqlite://./m.db?columns=auto').mode).toBe('at least once, idempotent');
  expect(g('tail', 'postgres+cdc://h/db?tables=a', '-').why).toBe("a stop re-sends the changes after the slot's confirmed position (same message ids); re-sent lines are printed again");
  // One table's changes into a file or a table keep their position there; several tables' mirrors are idempotent by key.
  expect(g('tail', 'postgres+cdc://h/db?tables=a&snapshot=never', 'file://./out.ndjson')).toEqual({
    mode: 'exactly once',
    why: "each batch is synced, then the file's length and the position are written beside it (<file>.bridge-position); a run cuts the file back to that length and resumes from that position: a stop at any moment (kill -9 included) loses no row and repeats none",
  });
  expect(g('tail', 'postgres+cdc://h/db?tables=a,b', 'file://./out.ndjson').mode).toBe('exactly once');
  expect(g('tail', 'mariadb+cdc://h/db?tables=a', 'postgres://h/db?table=log').why).toMatch(/^the position commits in the sink's transaction .*; but an initial copy stopped part-way is read again/);
  expect(g('tail', 'postgres://h/db?table=t&delete_after_read=true', 'https://peer/x').why).toMatch(/deleted once the sink confirmed them.*Idempotency-Key/);
  expect(g('serve', 'http://127.0.0.1:8080', 'postgres://h/db?table=t').why).toMatch(/^a request is answered 2xx only once its messages are durable/);
});
