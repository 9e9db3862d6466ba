/**
 * utf8mb4_bin pads: it compares 'a ' equal to 'a', so of two PostgreSQL keys that differ by
 * trailing spaces one was refused as a duplicate. MariaDB 10.2.2+ runs what `/*M!100202 … *\/`
 * holds (MySQL and older MariaDB skip it): there bridge's VARCHAR and TEXT columns take
 * utf8mb4_nopad_bin, which compares every character as PostgreSQL and SQLite do. Per column,
 * since MariaDB refuses a second table COLLATE; CHAR is left padding (it drops trailing spaces
 * anyway). MySQL has no NO PAD utf8mb4 collation MariaDB also knows: there trailing spaces pad.
 */
const NO_PAD = '/*M!100202 COLLATE utf8mb4_nopad_bin */';
const TEXT_TYPE = /^(?:VARCHAR\(\d+\)|(?:TINY|MEDIUM|LONG)?TEXT)$/;
/** A column definition of such a type (`name` TYPE …), up to the end of its type. */
const TEXT_DEF = /^(`(?:[^`]|``)*` (?:VARCHAR\(\d+\)|(?:TINY|MEDIUM|LONG)?TEXT))(?= |$)/;

/** The CREATE TABLE column definitions with NO PAD on their VARCHAR and TEXT columns. */
export const noPadColumns = (defs: string[]): string[] => defs.map((d) => d.replace(TEXT_DEF, `$1 ${NO_PAD}`));

/** A type for ALTER TABLE ADD/MODIFY COLUMN, with NO PAD when it is VARCHAR or TEXT. */
export const noPadType = (type: string): string => (TEXT_TYPE.test(type) ? `${type} ${NO_PAD}` : type);
