export { fileType, readBoundedBytes, readBoundedFile } from './bounded-file.js';
export {
  type DatabaseConfig,
  databaseLocation,
  databaseSetting,
  isPostgresUrl,
  maskDatabaseUrl,
  printableDatabaseLocation,
  storeLocation,
} from './database.js';
export { ConfigError } from './errors.js';
export {
  type Budget,
  type Config,
  type ConfigReads,
  DEFAULT_CONFIG_FILE,
  describeConfig,
  type LoadConfigOptions,
  loadConfig,
  maskUrlCredentials,
} from './load.js';
export * from './schema.js';
export { loadWebConfig, type WebConfig } from './web-config.js';
export { readWebTls, type WebTls } from './web-tls.js';
