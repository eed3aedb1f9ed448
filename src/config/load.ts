import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LevelWithSilent } from 'pino';
import { type Document, parseDocument } from 'yaml';
import * as z from 'zod';
import { CONTROL } from '../escape/control.js';
import { closest } from '../runtime/closest.js';
import { isHeaderSafe } from '../upstream/defaults.js';
import { type TierName, tiers } from '../upstream/endpoints.js';
import { readBoundedFile } from './bounded-file.js';
import {
  type DatabaseConfig,
  databaseTlsEnvShape,
  describeDatabase,
  isDatabaseUrl,
  maskDatabaseUrlSetting,
  readDatabaseTls,
  resolveDatabase,
} from './database.js';
import { ConfigError, describeIssues } from './errors.js';
import { maskQueueUrl, normalizeQueueEnv, type QueueConfig, queueEnvShape, resolveQueue } from './queue.js';
import {
  describeRedis,
  REDIS_SECRET_VARIABLES,
  type RedisSettings,
  redisEnvShape,
  resolveRedis,
} from './redis.js';
import { type FileConfig, fileConfigSchema, jobSectionSchemas, PARSED_ONCE } from './schema.js';
import { numbersForText, setAt, unknownKeyProblem, unquotedAliases } from './traps.js';
import { urlFileEnvShape, withUrlFiles } from './url-file.js';
import { maskPasswordParameters, maskSearchPasswords } from './url-password.js';
import { loadWebConfig, type WebConfig } from './web-config.js';

export interface Config {
  /** From GLACIER_API_KEY or the file named by GLACIER_API_KEY_FILE; never printed. */
  apiKey: string | undefined;
  baseUrl: string;
  /** SQLite (DATABASE_PATH, the default) or PostgreSQL (DATABASE_URL); `databaseLocation` gives what to open. */
  database: DatabaseConfig;
  /** The Redis the queue uses (REDIS_URL, or a redis:// QUEUE_URL); unused when `queue` is PostgreSQL. */
  redisUrl: string;
  /** The queue's backend: Redis, or PostgreSQL (QUEUE_URL=postgres://…). */
  queue: QueueConfig;
  /** REDIS_URL or Redis Sentinel, the passwords and the TLS files (src/config/redis.ts). */
  redis: RedisSettings;
  metricsHost: string;
  metricsPort: number;
  /** METRICS_WEB_CONFIG, read and checked: TLS and basic auth of /metrics and /readyz. */
  metricsWebConfig: WebConfig | undefined;
  logLevel: LevelWithSilent;
  /** LOG_FORMAT; undefined: pretty in a terminal, JSON otherwise. */
  logFormat: LogFormat | undefined;
  /** False when NO_COLOR is set (https://no-color.org). */
  color: boolean;
  /** The config file read, if any. */
  configPath: string | undefined;
  jobs: FileConfig['jobs'];
  client: FileConfig['client'];
  service: FileConfig['service'];
  retention: FileConfig['retention'];
  /** The cap on records set aside per job and run. */
  setAside: FileConfig['setAside'];
  /** Resolved: the tier and its limits, or the configured overrides. */
  budget: Budget;
  /** What is not wrong enough to refuse, but likely a mistake (an unknown GLACIER_ variable): the CLI prints them. */
  warnings: string[];
}

export interface Budget {
  tier: TierName;
  computeUnitsPerMinute: number;
  computeUnitsPerDay: number;
}

export const DEFAULT_CONFIG_FILE = './glacier-collector.yaml';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logFormats = ['json', 'pretty'] as const;
export type LogFormat = (typeof logFormats)[number];

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
  /** DATABASE_URL_FILE, QUEUE_URL_FILE: the URLs read from files (src/config/url-file.ts). */
  ...urlFileEnvShape,
  /** PostgreSQL: connections of each process's pool. @defaultValue 10 */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** PostgreSQL over TLS: the CA file, client certificate and key (src/config/database.ts). */
  ...databaseTlsEnvShape,
  /** @defaultValue 'redis://127.0.0.1:6379' */
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'a redis:// or rediss:// URL' })
    .default('redis://127.0.0.1:6379'),
  /** Redis or PostgreSQL for the queue (src/config/queue.ts). */
  ...queueEnvShape,
  /** Redis Sentinel, the Redis passwords and TLS files (src/config/redis.ts). */
  ...redisEnvShape,
  /** @defaultValue '0.0.0.0' */
  METRICS_HOST: z.string().min(1).default('0.0.0.0'),
  /** @defaultValue 9464 */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  /** A Prometheus exporter-toolkit web config file (TLS, basic auth), as node_exporter's --web.config.file. */
  METRICS_WEB_CONFIG: z.string().min(1).optional(),
  /** @defaultValue 'info' */
  LOG_LEVEL: z.enum(logLevels).default('info'),
  /** `json` (one JSON object per line) or `pretty` (one readable line per event). @defaultValue pretty in a terminal, json otherwise */
  LOG_FORMAT: z.enum(logFormats).optional(),
  /** Any non-empty value turns colours off in pretty logs (https://no-color.org). */
  NO_COLOR: z.string().optional(),
  GLACIER_CONFIG: z.string().min(1).optional(),
});

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** A config path given on the command line; wins over GLACIER_CONFIG. */
  configPath?: string | undefined;
  /** A config already in memory (the demo), validated as a file would be; wins over any path. */
  file?: unknown;
  /** What the command reads of the configuration; everything, refusing any invalid section, by default. */
  reads?: ConfigReads;
}

/**
 * What a command reads of the configuration. A command that neither calls the API nor runs a job
 * (`migrate`, `status`, `report …`, `backup`) is never kept from working by a job section it does not
 * run: an invalid one is said (the problems `start` would refuse it for) and left out. Reading less is
 * also starting sooner: `migrate` and `backup` read no config file, and only `start` and `config check`
 * read the metrics web config (its files, its bcrypt hashes).
 */
export interface ConfigReads {
  /** The config file (false: the environment only, every section at its default). @defaultValue true */
  file?: boolean;
  /**
   * `refuse`: an invalid `jobs.<job>` section fails the load (ConfigError, exit 2): `start`, `run`,
   * `config check`. `warn`: it is left out (the job reads as not configured) and its problems go to
   * `warnings`. @defaultValue 'refuse'
   */
  invalidJobs?: 'refuse' | 'warn';
  /** METRICS_WEB_CONFIG read and checked. @defaultValue true */
  webConfig?: boolean;
}

/** Reads and validates the environment and the config file once; throws ConfigError naming every bad key. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  // `GLACIER_API_KEY=` (an unset `${VAR}` in compose) means unset, not an invalid empty value.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  refuseControlCharacters(given);
  // A redis:// QUEUE_URL is read as REDIS_URL: what reaches Redis reads that; a *_URL_FILE as its URL.
  const present = normalizeQueueEnv(withUrlFiles(given, cwd));
  const parsedEnv = envSchema.safeParse(present, PARSED_ONCE);
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
  const reads = options.reads ?? {};
  const leftOut: string[] = [];
  const invalidJobs = reads.invalidJobs === 'warn' ? leftOut : undefined;
  const file =
    options.file !== undefined
      ? validateFileConfig(options.file, 'config', undefined, invalidJobs)
      : configPath && (reads.file ?? true)
        ? parseConfigFile(configPath, invalidJobs)
        : fileConfigSchema.parse({}, PARSED_ONCE);
  const apiKey = readApiKey(e.GLACIER_API_KEY, e.GLACIER_API_KEY_FILE, cwd);
  const database = resolveDatabase(e, present, cwd);
  return {
    warnings: [...unknownVariables(present), ...leftOut],
    apiKey,
    baseUrl: e.GLACIER_BASE_URL.replace(/\/+$/, ''),
    database,
    redisUrl: e.REDIS_URL,
    // The queue on PostgreSQL takes the store's TLS files (DATABASE_TLS_*), read once.
    queue: resolveQueue(e, file.service.queuePrefix, () =>
      database.kind === 'postgres' ? database.tls : readDatabaseTls(e, cwd),
    ),
    redis: resolveRedis(e, present, cwd),
    metricsHost: e.METRICS_HOST,
    metricsPort: e.METRICS_PORT,
    metricsWebConfig:
      e.METRICS_WEB_CONFIG && (reads.webConfig ?? true)
        ? loadWebConfig(resolve(cwd, e.METRICS_WEB_CONFIG))
        : undefined,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    color: e.NO_COLOR === undefined,
    configPath,
    jobs: file.jobs,
    client: file.client,
    service: file.service,
    retention: file.retention,
    setAside: file.setAside,
    budget: resolveBudget(file.budget, apiKey),
  };
}

/** The prefix of the collector's own variables: another one is a typo, never someone else's setting. */
const OWN_PREFIX = 'GLACIER_';

/**
 * A variable named like the collector's own (`GLACIER_…`) that it does not read: most likely a typo
 * (`GLACIER_APIKEY`), which would otherwise be ignored without a word. Named with the closest
 * variable it reads, never with its value (it may be a key).
 */
export function unknownVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  const known = Object.keys(envSchema.shape);
  const own = known.filter((name) => name.startsWith(OWN_PREFIX));
  return Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith(OWN_PREFIX) && !known.includes(name))
    .sort()
    .map((name) => {
      const near = closest(name, known);
      return near
        ? `${name} is not a variable glacier-collector reads, so it is ignored; did you mean ${near}?`
        : `${name} is not a variable glacier-collector reads, so it is ignored; its variables of that name: ${own.join(', ')}`;
    });
}

/**
 * A variable the collector reads may hold no control character: a line break in GLACIER_BASE_URL was
 * silently dropped by the URL parser, one in METRICS_HOST passed and failed later. The value is not
 * shown (it may be a secret), only where the first such character is.
 */
function refuseControlCharacters(present: Record<string, string | undefined>): void {
  const problems: string[] = [];
  for (const name of Object.keys(envSchema.shape)) {
    const value = present[name];
    if (value === undefined) continue;
    CONTROL.lastIndex = 0;
    const found = CONTROL.exec(value);
    CONTROL.lastIndex = 0;
    if (found) {
      const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      problems.push(
        `${name}: holds a control character (${code}${found[0] === '\n' ? ', a line break' : ''}) at position ${found.index + 1}; remove it (a stray newline from a file or a script?)`,
      );
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid environment:\n  - ${problems.join('\n  - ')}`, problems);
  }
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

/** `leftOut`: given, an invalid job section is left out and its problems said there instead of refused. */
export function parseConfigFile(path: string, leftOut?: string[]): FileConfig {
  const text = readBoundedFile(path, 'config file');
  let raw: unknown;
  let doc: Document | undefined;
  try {
    if (path.endsWith('.json')) raw = JSON.parse(text);
    else {
      // The document, not only its values: a message can quote a value as the file wrote it.
      doc = parseDocument(text);
      const aliases = unquotedAliases(text, doc.errors);
      if (aliases.length > 0) {
        throw new ConfigError(`Invalid config file ${path}:\n  - ${aliases.join('\n  - ')}`, aliases);
      }
      if (doc.errors.length > 0) throw doc.errors[0];
      raw = doc.toJS();
    }
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    throw new ConfigError(
      `Config file ${path} is not valid YAML/JSON: ${(cause as Error).message}`,
      undefined,
      {
        cause,
      },
    );
  }
  return validateFileConfig(raw, `config file ${path}`, doc, leftOut);
}

/**
 * Validates a config file's content; every problem in one pass. A number where text is expected
 * (YAML's unquoted `0x…` or chain id) is reported, and its text as written put in its place, so the
 * checks behind it (addresses, chain ids) run in the same pass instead of on the next check.
 */
function validateFileConfig(raw: unknown, what: string, doc?: Document, leftOut?: string[]): FileConfig {
  let input = raw ?? {};
  let cloned = false;
  const own = () => {
    if (!cloned) input = structuredClone(input);
    cloned = true;
  };
  const quoteThem: { problem: string; path: readonly PropertyKey[] }[] = [];
  for (let round = 0; round < 20; round++) {
    const parsed = fileConfigSchema.safeParse(input, PARSED_ONCE);
    if (parsed.success && quoteThem.length === 0) return parsed.data;
    const issues = parsed.success ? [] : parsed.error.issues;
    const numbers = numbersForText(issues, input, doc);
    if (numbers.length > 0) {
      own();
      for (const n of numbers) {
        quoteThem.push({ problem: n.problem, path: n.path });
        setAt(input, n.path, n.written);
      }
      continue;
    }
    const problems = [
      ...quoteThem.map((q) => q.problem),
      ...describeIssues(issues, input, [], (path, key) => unknownKeyProblem(fileConfigSchema, path, key)),
    ];
    const sections = leftOut && jobSectionsOnly([...quoteThem, ...issues]);
    if (!sections) throw new ConfigError(`Invalid ${what}:\n  - ${problems.join('\n  - ')}`, problems);
    // Only job sections are wrong, and this command runs none: each is said once and read without
    // its wrong entries (a bad node id among good ones), or left out when more than that is wrong.
    own();
    const jobs = (input as { jobs: Record<string, unknown> }).jobs;
    for (const name of sections) {
      const kept = withoutWrongEntries(name, jobs[name], issues);
      if (kept === undefined) delete jobs[name];
      else jobs[name] = kept;
      leftOut.push(leftOutMessage(what, name, problems, kept !== undefined));
    }
    quoteThem.length = 0;
  }
  throw new ConfigError(`Invalid ${what}:\n  - ${quoteThem.map((q) => q.problem).join('\n  - ')}`);
}

/** The `jobs.<job>` sections every issue is inside, or undefined when one is elsewhere (or names `jobs` itself). */
function jobSectionsOnly(
  issues: readonly { path: readonly PropertyKey[]; code?: string; keys?: string[] }[],
): string[] | undefined {
  const sections = new Set<string>();
  for (const issue of issues) {
    const [top, name] = issue.path;
    // An unknown job (`jobs.rewardz`): a section no command runs, left out as well.
    if (issue.path.length === 1 && top === 'jobs' && issue.code === 'unrecognized_keys' && issue.keys) {
      for (const key of issue.keys) sections.add(key);
      continue;
    }
    if (top !== 'jobs' || typeof name !== 'string') return undefined;
    sections.add(name);
  }
  return sections.size > 0 ? [...sections] : undefined;
}

/**
 * The section `jobs.<name>` without the list entries the issues point at (`nodeIds[0]`), when that
 * is all that is wrong with it and what is left passes; undefined when the section is to be left out.
 */
function withoutWrongEntries(
  name: string,
  section: unknown,
  issues: readonly z.core.$ZodIssue[],
): unknown | undefined {
  const schema = jobSectionSchemas[name as keyof typeof jobSectionSchemas];
  const mine = issues.filter((i) => i.path[1] === name);
  if (!schema || mine.length === 0 || section === null || typeof section !== 'object') return undefined;
  const drop = new Map<string, Set<number>>();
  for (const issue of mine) {
    const [, , key, index] = issue.path;
    if (typeof key !== 'string' || typeof index !== 'number') return undefined;
    drop.set(key, (drop.get(key) ?? new Set()).add(index));
  }
  const kept: Record<string, unknown> = { ...(section as Record<string, unknown>) };
  for (const [key, indexes] of drop) {
    const list = kept[key];
    if (!Array.isArray(list)) return undefined;
    kept[key] = list.filter((_, i) => !indexes.has(i));
  }
  return schema.safeParse(kept, PARSED_ONCE).success ? kept : undefined;
}

/** What a command that runs no job says of an invalid job section: the problems `start` refuses it for. */
function leftOutMessage(
  what: string,
  name: string,
  problems: readonly string[],
  entriesOnly: boolean,
): string {
  const own = problems.filter(
    (p) => /^[.:\s=[]/.test(p.slice(`jobs.${name}`.length)) && p.startsWith(`jobs.${name}`),
  );
  const reading = entriesOnly
    ? 'this command reads it without those entries'
    : 'this command reads it as not configured';
  return `${what}: jobs.${name} is invalid, so ${reading} (start, run and config check refuse it until it is fixed):\n  - ${(own.length > 0 ? own : problems).join('\n  - ')}`;
}

function readApiKey(key: string | undefined, keyFile: string | undefined, cwd: string): string | undefined {
  if (key && keyFile) {
    throw new ConfigError('Set GLACIER_API_KEY or GLACIER_API_KEY_FILE, not both');
  }
  if (!keyFile) {
    if (key !== undefined && !isHeaderSafe(key)) throw new ConfigError(keyCharsetProblem('GLACIER_API_KEY'));
    return key;
  }
  // A key is a few dozen characters: 64 KiB is far above any, and far below what would hurt.
  const text = readBoundedFile(resolve(cwd, keyFile), 'GLACIER_API_KEY_FILE', {
    maxBytes: 64 * 1024,
    kind: 'an API key file',
  });
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
  for (const name of REDIS_SECRET_VARIABLES) if (env[name] !== undefined) masked[name] = '***';
  for (const name of ['GLACIER_BASE_URL', 'REDIS_URL']) {
    const value = env[name];
    if (value !== undefined) masked[name] = maskUrlCredentials(value);
  }
  if (env.DATABASE_URL !== undefined) masked.DATABASE_URL = maskDatabaseUrlSetting(env.DATABASE_URL);
  if (env.QUEUE_URL !== undefined) masked.QUEUE_URL = maskQueueUrl(env.QUEUE_URL);
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
    queue:
      config.queue.kind === 'postgres'
        ? { ...config.queue, url: maskQueueUrl(config.queue.url) }
        : config.queue,
    redis: describeRedis(config.redis),
    // The bcrypt hashes are not secrets, but nothing needs them printed.
    metricsWebConfig: config.metricsWebConfig && {
      path: config.metricsWebConfig.path,
      tls: config.metricsWebConfig.tls ?? false,
      basicAuthUsers: Object.keys(config.metricsWebConfig.users),
    },
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
    return maskPasswordParameters(
      url.replace(
        /^([a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i,
        (_m, scheme: string | undefined) => `${scheme ?? ''}***@`,
      ),
    );
  }
  if (u.username) u.username = '***';
  if (u.password) u.password = '***';
  u.search = maskSearchPasswords(u.search);
  const text = u.toString();
  // new URL() adds a slash to a bare origin; keep the URL as given otherwise.
  return url.endsWith('/') || !text.endsWith('/') || u.pathname !== '/' ? text : text.slice(0, -1);
}
