export { ConfigError } from './errors.js';
export {
  type Config,
  DEFAULT_CONFIG_FILE,
  describeConfig,
  type LoadConfigOptions,
  loadConfig,
} from './load.js';
export * from './schema.js';
