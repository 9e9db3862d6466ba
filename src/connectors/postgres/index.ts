import type { KindDriver } from '../sql/kind.js';
import type { PoolFactory } from '../sql/pool.js';
import type { SqlConnection } from '../sql/types.js';
import { parsePgArray } from './array.js';
import { PostgresDialect } from './dialect.js';
import { classifyPg, pgPoolFactory } from './driver.js';

export const postgresKind: KindDriver = {
  dialect: new PostgresDialect(),
  poolFactory: (ep, warn) => pgPoolFactory(ep, warn) as unknown as PoolFactory<SqlConnection>,
  classify: classifyPg,
  loose: false,
  parseArray: parsePgArray,
};
