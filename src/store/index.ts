export * from './cursors.js';
export * from './exported-transactions.js';
export * from './exports.js';
export * from './job-runs.js';
export {
  DatabaseOpenError,
  DatabaseWriteError,
  migrationsFolder,
  type OpenStoreOptions,
  openStore,
  type Store,
} from './open.js';
export * from './rewards.js';
export * as tables from './schema.js';
export * from './signatures.js';
export * from './summaries.js';
export * from './supply.js';
export * from './tables.js';
export * from './transactions.js';
export * from './usage-metrics.js';
