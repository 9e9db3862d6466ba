import { configError } from './errors.js';

/**
 * Imports a package bridge does not install by default (cloud checkpoint stores, MongoDB, SQL
 * Server, zstd/lz4): a run that needs one and lacks it gets one line naming what to install,
 * the way Knex and Kysely treat database drivers, instead of a module-resolution stack.
 */
export async function optionalImport<T>(pkg: string, forWhat: string): Promise<T> {
  try {
    return (await import(pkg)) as T;
  } catch (e) {
    const code = (e as { code?: string }).code;
    // Only this package missing; an error inside an installed package is its own.
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((e as Error).message).includes(`'${pkg}'`))
      throw configError(`${forWhat} needs the package ${pkg}, which is not installed: npm install ${pkg} (next to bridge)`);
    throw e;
  }
}
