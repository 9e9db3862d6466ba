import { useWorkerDatabases } from './worker-databases.js';

// Setup file of the "parallel" project: vitest numbers its workers 1..maxWorkers.
useWorkerDatabases(Number(process.env.VITEST_POOL_ID ?? 1));
