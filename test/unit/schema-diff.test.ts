import { expect, it } from 'vitest';
import { diffColumns, type StreamColumn } from '../../src/core/schema-change.js';

/** Columns `name:type[#attnum]`. */
const cols = (...specs: string[]): StreamColumn[] =>
  specs.map((s) => {
    const [nt, num] = s.split('#');
    const [name, type] = nt!.split(':');
    return num === undefined ? { name: name!, type: type! } : { name: name!, type: type!, attnum: Number(num) };
  });

it('an added column is appended; a dropped one leaves the others in order; a type change keeps the name', () => {
  expect(diffColumns(cols('id:i', 'a:i'), cols('id:i', 'a:i', 'w:i'))).toEqual([{ op: 'add', column: 'w' }]);
  expect(diffColumns(cols('id:i', 'a:i', 'w:i'), cols('id:i', 'w:i'))).toEqual([{ op: 'drop', column: 'a' }]);
  expect(diffColumns(cols('id:i', 'a:i'), cols('id:i', 'a:b'))).toEqual([{ op: 'type', column: 'a' }]);
});

it('without column numbers: a new name in an old one\'s place, nothing appended, is a rename; the last column renamed, or a drop beside an add, is unclear', () => {
  expect(diffColumns(cols('id:i', 'a:i', 's:t'), cols('id:i', 'b:i', 's:t'))).toEqual([{ op: 'rename', from: 'a', to: 'b' }]);
  expect(diffColumns(cols('id:i', 'a:i', 's:t'), cols('id:i', 'b:b', 's:t'))).toEqual([{ op: 'rename', from: 'a', to: 'b' }, { op: 'type', column: 'b' }]);
  // The last column: a rename, or a drop and an add (appended in its place)?
  expect(diffColumns(cols('id:i', 'a:i', 'c:i'), cols('id:i', 'a:i', 'd:i'))).toEqual([{ op: 'unclear', gone: ['c'], added: ['d'] }]);
  // A drop and a rename: the places shift, so places prove nothing.
  expect(diffColumns(cols('id:i', 'a:i', 'c:i', 'e:i'), cols('id:i', 'x:i', 'e:i'))).toEqual([{ op: 'unclear', gone: ['a', 'c'], added: ['x'] }]);
});

it('with column numbers: the same number is the same column, whatever its place or type', () => {
  expect(diffColumns(cols('id:i#1', 'a:i#2', 'c:i#3'), cols('id:i#1', 'b:b#2', 'd:i#4'))).toEqual([
    { op: 'rename', from: 'a', to: 'b' },
    { op: 'drop', column: 'c' },
    { op: 'add', column: 'd' },
    { op: 'type', column: 'b' },
  ]);
  expect(diffColumns(cols('id:i#1', 'a:i#2', 'c:i#3', 'e:i#4'), cols('id:i#1', 'x:i#3', 'e:i#4'))).toEqual([
    { op: 'rename', from: 'c', to: 'x' },
    { op: 'drop', column: 'a' },
  ]);
});

it('the first shape a run sees has nothing to compare with', () => {
  expect(diffColumns(undefined, cols('id:i'))).toEqual([]);
});

it('MariaDB and MySQL add a column anywhere (FIRST, AFTER): a place proves nothing there, the ALTER statement in the binlog does', async () => {
  const { renamesOf } = await import('../../src/connectors/mysql/binlog-ddl.js');
  expect(diffColumns(cols('id:i', 'a:i', 's:t'), cols('id:i', 'b:i', 's:t'), false)).toEqual([{ op: 'unclear', gone: ['a'], added: ['b'] }]);
  const ddl = renamesOf('ALTER TABLE `test`.`t` RENAME COLUMN a TO `b`, CHANGE COLUMN `c` d bigint', 'other');
  expect(ddl).toEqual({ schema: 'test', table: 't', renames: [['a', 'b'], ['c', 'd']] });
  expect(diffColumns(cols('id:i', 'a:i', 'c:i'), cols('id:i', 'b:i', 'd:b'), false, ddl!.renames)).toEqual([
    { op: 'rename', from: 'a', to: 'b' },
    { op: 'rename', from: 'c', to: 'd' },
    { op: 'type', column: 'd' },
  ]);
  expect(renamesOf('ALTER TABLE t ADD COLUMN w int', 'test')).toEqual({ schema: 'test', table: 't', renames: [] });
  expect(renamesOf('INSERT INTO t VALUES (1)', 'test')).toBeUndefined();
});
