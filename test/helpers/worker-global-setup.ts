import { createWorkerDatabases } from './worker-databases.js';

// Global setup: once per run, before any worker starts.
export default async function setup(): Promise<void> {
  await createWorkerDatabases();
}
