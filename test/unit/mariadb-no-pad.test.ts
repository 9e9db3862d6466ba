import { describe, expect, it } from 'vitest';
import { MysqlDialect } from '../../src/connectors/mysql/dialect.js';

/**
 * What --dry-run and a mirror that follows its source run on MariaDB: VARCHAR and TEXT columns
 * NO PAD (utf8mb4_nopad_bin, as an executable comment MySQL skips), so 'a' and 'a ' stay two keys.
 * Found in review: a column a mirror added or retyped (ALTER TABLE … ADD / MODIFY) took the table's
 * PAD default again, and the duplicate came back.
 */
const d = new MysqlDialect('mariadb');
const NO_PAD = '/*M!100202 COLLATE utf8mb4_nopad_bin */';

describe('MariaDB NO PAD text columns', () => {
  it('CREATE TABLE: VARCHAR and every TEXT, not CHAR, ENUM, JSON or bytes', () => {
    const [ddl] = d.createTable('t', ['`a` VARCHAR(10) NOT NULL', '`b` LONGTEXT', '`c` CHAR(36)', "`e` ENUM('x','y')", '`j` JSON', '`v` VARBINARY(20)', '`t` TINYTEXT', 'PRIMARY KEY (`a`)']);
    expect(ddl).toContain(`\`a\` VARCHAR(10) ${NO_PAD} NOT NULL, \`b\` LONGTEXT ${NO_PAD}, \`c\` CHAR(36), \`e\` ENUM('x','y'), \`j\` JSON, \`v\` VARBINARY(20), \`t\` TINYTEXT ${NO_PAD}, PRIMARY KEY (\`a\`)`);
  });

  it('ALTER TABLE of a mirror: an added and a retyped text column are NO PAD too', () => {
    expect(d.alterColumn('t', { op: 'add', column: 'n', type: 'VARCHAR(40)' })).toBe(`ALTER TABLE \`t\` ADD COLUMN \`n\` VARCHAR(40) ${NO_PAD}`);
    expect(d.alterColumn('t', { op: 'type', column: 'a', type: 'VARCHAR(100)', nullable: false })).toBe(`ALTER TABLE \`t\` MODIFY COLUMN \`a\` VARCHAR(100) ${NO_PAD} NOT NULL`);
    expect(d.alterColumn('t', { op: 'type', column: 'n', type: 'BIGINT', nullable: true })).toBe('ALTER TABLE `t` MODIFY COLUMN `n` BIGINT NULL');
  });
});
