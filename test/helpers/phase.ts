import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Which phase of the suite runs this file (test/helpers/vitest-projects.ts). */
    phase: 'parallel' | 'serial';
  }
}

/**
 * For a file that runs in both phases: its cases on MariaDB run in the serial phase, the others
 * beside other files. A MariaDB tail waits on every open transaction of the server (INNODB_TRX
 * has no database), so other files' writers would change what these cases measure; PostgreSQL
 * lists only its own database's transactions, and SQLite files are the test's own.
 * Outside the two phases (another config) every kind runs.
 */
export function kindsOfThisPhase<K extends string>(kinds: readonly K[]): K[] {
  const phase = inject('phase');
  if (phase === undefined) return [...kinds];
  return kinds.filter((k) => (k === 'mariadb') === (phase === 'serial'));
}
