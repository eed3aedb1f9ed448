import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LevelWithSilent } from 'pino';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { isHeaderSafe } from '../upstream/defaults.js';
import { type TierName, tiers } from '../upstream/endpoints.js';
import {
  type DatabaseConfig,
  describeDatabase,
  isDatabaseUrl,
  maskDatabaseUrlSetting,
  resolveDatabase,
} from './database.js';
import { ConfigError, describeIssues } from './errors.js';
import { type FileConfig, fileConfigSchema } from './schema.js';

export interface Config {
  /** From GLACIER_API_KEY or the file named by GLACIER_API_KEY_FILE; never printed. */
  apiKey: string | undefined;
  baseUrl: string;
  /** SQLite (DATABASE_PATH, the default) or PostgreSQL (DATABASE_URL); `databaseLocation` gives what to open. */
  database: DatabaseConfig;
  redisUrl: string;
  metricsHost: string;
  metricsPort: number;
  logLevel: LevelWithSilent;
  /** The config file read, if any. */
  configPath: string | undefined;
  jobs: FileConfig['jobs'];
  client: FileConfig['client'];
  service: FileConfig['service'];
  retention: FileConfig['retention'];
  /** Resolved: the tier and its limits, or the configured overrides. */
  budget: Budget;
}

export interface Budget {
  tier: TierName;
  computeUnitsPerMinute: number;
  computeUnitsPerDay: number;
}

export const DEFAULT_CONFIG_FILE = './glacier-collector.yaml';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The environment the collector reads (the only reader of process.env); defaults documented in docs/configuration.md. */
export const envSchema = z.object({
  GLACIER_API_KEY: z.string().min(1).optional(),
  GLACIER_API_KEY_FILE: z.string().min(1).optional(),
  /** @defaultValue 'https://data-api.avax.network' */
  GLACIER_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. https://data-api.avax.network' })
    .refine((url) => !/[?#]/.test(url), {
      error: 'no query string or fragment: the collector appends the API paths and queries itself',
    })
    .default('https://data-api.avax.network'),
  /** SQLite database file; setting DATABASE_URL too is an error. @defaultValue './data/glacier.db' */
  DATABASE_PATH: z.string().min(1).default('./data/glacier.db'),
  /** A PostgreSQL database instead of the SQLite file; its password is masked wherever it is printed. */
  DATABASE_URL: z
    .string()
    .refine(isDatabaseUrl, {
      error:
        'a postgres:// or postgresql:// URL, e.g. postgres://collector:secret@db.example.com:5432/glacier',
    })
    .optional(),
  /** PostgreSQL: connections of each process's pool. @defaultValue 10 */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** @defaultValue 'redis://127.0.0.1:6379' */
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'a redis:// or rediss:// URL' })
    .default('redis://127.0.0.1:6379'),
  /** @defaultValue '0.0.0.0' */
  METRICS_HOST: z.string().min(1).default('0.0.0.0'),
  /** @defaultValue 9464 */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  /** @defaultValue 'info' */
  LOG_LEVEL: z.enum(logLevels).default('info'),
  GLACIER_CONFIG: z.string().min(1).optional(),
});

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** A config path given on the command line; wins over GLACIER_CONFIG. */
  configPath?: string | undefined;
  /** A config already in memory (the demo), validated as a file would be; wins over any path. */
  file?: unknown;
}

/** Reads and validates the environment and the config file once; throws ConfigError naming every bad key. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  // `GLACIER_API_KEY=` (an unset `${VAR}` in compose) means unset, not an invalid empty value.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsedEnv = envSchema.safeParse(present);
  if (!parsedEnv.success) {
    const problems = describeIssues(parsedEnv.error.issues, maskEnv(present));
    throw new ConfigError(`Invalid environment:\n  - ${problems.join('\n  - ')}`, problems);
  }
  const e = parsedEnv.data;
  const explicitPath = options.configPath ?? e.GLACIER_CONFIG;
  const configPath = explicitPath
    ? resolve(cwd, explicitPath)
    : existsSync(resolve(cwd, DEFAULT_CONFIG_FILE))
      ? resolve(cwd, DEFAULT_CONFIG_FILE)
      : undefined;
  const file =
    options.file !== undefined
      ? validateFileConfig(options.file, 'config')
      : configPath
        ? parseConfigFile(configPath)
        : fileConfigSchema.parse({});
  const apiKey = readApiKey(e.GLACIER_API_KEY, e.GLACIER_API_KEY_FILE, cwd);
  return {
    apiKey,
    baseUrl: e.GLACIER_BASE_URL.replace(/\/+$/, ''),
    database: resolveDatabase(e, present, cwd),
    redisUrl: e.REDIS_URL,
    metricsHost: e.METRICS_HOST,
    metricsPort: e.METRICS_PORT,
    logLevel: e.LOG_LEVEL,
    configPath,
    jobs: file.jobs,
    client: file.client,
    service: file.service,
    retention: file.retention,
    budget: resolveBudget(file.budget, apiKey),
  };
}

/** The budget's tier defaults to Free with a key and to the keyless limits without one. */
function resolveBudget(budget: FileConfig['budget'], apiKey: string | undefined): Budget {
  const tier = budget.tier ?? (apiKey ? 'Free' : 'none');
  return {
    tier,
    computeUnitsPerMinute: budget.computeUnitsPerMinute ?? tiers[tier].perMinute,
    computeUnitsPerDay: budget.computeUnitsPerDay ?? tiers[tier].perDay,
  };
}

export function parseConfigFile(path: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new ConfigError(`Cannot read config file ${path}: ${(cause as Error).message}`, undefined, {
      cause,
    });
  }
  let raw: unknown;
  try {
    raw = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (cause) {
    throw new ConfigError(
      `Config file ${path} is not valid YAML/JSON: ${(cause as Error).message}`,
      undefined,
      {
        cause,
      },
    );
  }
  return validateFileConfig(raw, `config file ${path}`);
}

function validateFileConfig(raw: unknown, what: string): FileConfig {
  const parsed = fileConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, raw);
    throw new ConfigError(`Invalid ${what}:\n  - ${problems.join('\n  - ')}`, problems);
  }
  return parsed.data;
}

function readApiKey(key: string | undefined, keyFile: string | undefined, cwd: string): string | undefined {
  if (key && keyFile) {
    throw new ConfigError('Set GLACIER_API_KEY or GLACIER_API_KEY_FILE, not both');
  }
  if (!keyFile) {
    if (key !== undefined && !isHeaderSafe(key)) throw new ConfigError(keyCharsetProblem('GLACIER_API_KEY'));
    return key;
  }
  const path = resolve(cwd, keyFile);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new ConfigError(
      `GLACIER_API_KEY_FILE = "${keyFile}": cannot read the key file (${(cause as NodeJS.ErrnoException).code ?? 'error'})`,
      undefined,
      { cause },
    );
  }
  const trimmed = text.trim();
  if (!trimmed) throw new ConfigError(`GLACIER_API_KEY_FILE = "${keyFile}": the key file is empty`);
  if (!isHeaderSafe(trimmed)) {
    throw new ConfigError(keyCharsetProblem(`GLACIER_API_KEY_FILE = "${keyFile}"`));
  }
  return trimmed;
}

function keyCharsetProblem(source: string): string {
  return `${source}: the API key may only hold visible ASCII characters (no spaces, accents or line breaks inside it); value not shown`;
}

function maskEnv(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const masked: Record<string, string | undefined> = {
    ...env,
    GLACIER_API_KEY: env.GLACIER_API_KEY ? '***' : undefined,
  };
  for (const name of ['GLACIER_BASE_URL', 'REDIS_URL']) {
    const value = env[name];
    if (value !== undefined) masked[name] = maskUrlCredentials(value);
  }
  if (env.DATABASE_URL !== undefined) masked.DATABASE_URL = maskDatabaseUrlSetting(env.DATABASE_URL);
  return masked;
}

/** The effective config as `config check` prints it: secrets masked. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    apiKey: config.apiKey
      ? `*** (set, ${config.apiKey.length} characters)`
      : '(not set: keyless rate limits)',
    baseUrl: maskUrlCredentials(config.baseUrl),
    database: describeDatabase(config.database),
    redisUrl: maskUrlCredentials(config.redisUrl),
  };
}

/**
 * A URL as it may be printed: user name and password replaced by `***`. Text that is not a URL is
 * masked from its scheme to its last `@`, in case it still holds credentials.
 */
export function maskUrlCredentials(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.replace(
      /^([a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i,
      (_m, scheme: string | undefined) => `${scheme ?? ''}***@`,
    );
  }
  if (u.username) u.username = '***';
  if (u.password) u.password = '***';
  const text = u.toString();
  // new URL() adds a slash to a bare origin; keep the URL as given otherwise.
  return url.endsWith('/') || !text.endsWith('/') || u.pathname !== '/' ? text : text.slice(0, -1);
}
