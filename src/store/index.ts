export * from './cycles.js';
export { DatabaseOpenError, DatabaseWriteError, diskFullError } from './errors.js';
export * from './exported-transactions.js';
export * from './exports.js';
export { appliedMigrations, checkWritable, shippedMigrations } from './health.js';
export {
  DatabaseNewerError,
  describeMigration,
  type MigrationListener,
  type ShippedMigration,
} from './migrations.js';
export { type OpenStoreOptions, openStore } from './open.js';
export * from './prune.js';
export * from './rejected-records.js';
export * from './rewards.js';
export * from './row-sizes.js';
export * from './runs.js';
export * as tables from './schema.js';
export * from './signature-attempts.js';
export * from './signatures.js';
export type {
  Dialect,
  Sql,
  Store,
  StoreLocation,
  TransactionOptions,
} from './sql.js';
export { migrationsFolder, openSqliteConnection, SQLITE_CACHE_KIB } from './sqlite.js';
export * from './storage.js';
export * from './store-meta.js';
export * from './summaries.js';
export * from './supply.js';
export * from './tables.js';
export * from './transactions.js';
export * from './usage-metrics.js';
export * from './validation-report.js';
export * from './validations.js';
