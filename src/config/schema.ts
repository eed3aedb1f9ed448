import { isIP } from 'node:net';
import cron from 'node-cron';
import * as z from 'zod';
import { clientDefaults } from '../upstream/defaults.js';
import {
  canonicalNetwork,
  currencies,
  networks,
  primaryNetworkChains,
  tierNames,
} from '../upstream/endpoints.js';
import { defaultRetryPolicy } from '../upstream/retry.js';
import { formatDuration, MAX_TIMER_MS, parseDuration } from './durations.js';
import { formatPath } from './errors.js';
import { addressProblem, nodeIdProblem, txHashProblem } from './identifiers.js';
import { refuseRetentionBelowRereads, retentionSchema } from './retention.js';
import { parseSize } from './sizes.js';

export {
  FOREVER,
  RETAINED_TABLES,
  type Retention,
  type RetentionConfig,
  retentionFloors,
  STARTER_RETENTION,
} from './retention.js';

/**
 * The config file (YAML or JSON): what to collect and when. Every object is strict, so a misspelt
 * key is an error rather than a silently ignored setting. Defaults are documented next to each field
 * and in docs/configuration.md (a test keeps the two in step).
 */

/**
 * The options of a parse that runs once a process (the config, the environment, the web config):
 * zod's compiled fast path for an object (built with `new Function` on its first parse) costs more
 * to build than one parse saves, on the start of every command (`config check` is a benchmark figure).
 */
export const PARSED_ONCE = { jitless: true } as const;

/** The maintenance job's default schedule: daily, at a quiet minute. */
export const MAINTENANCE_SCHEDULE = '17 3 * * *';

const cronSchedule = z.string().superRefine((expr, ctx) => {
  const result = cron.validateDetailed(expr);
  if (!result.valid) {
    const detail = result.errors?.map((e) => e.message).join('; ');
    ctx.addIssue({
      code: 'custom',
      message: `not a valid cron expression (${detail}); use 5 fields "minute hour day-of-month month day-of-week", or 6 with seconds first`,
    });
  }
});

/**
 * Every duration setting goes through here, with its own sane range: a value outside it is refused at
 * start-up, naming the key and the range. `default` (also the example shown in messages) is the one
 * source of the setting's default. A duration that becomes a timer must stay under MAX_TIMER_MS:
 * Node fires a longer timer after 1 ms.
 */
interface DurationSpec {
  /** The default (text like "30s", or ms); also the example shown in messages. */
  default?: string | number;
  example?: string;
  min: string;
  max: string;
  /** False for a span that never becomes a timer (a lookback), so it may pass MAX_TIMER_MS. */
  timer?: boolean;
}

function duration(spec: DurationSpec & { default: string | number }): z.ZodDefault<DurationSchema>;
function duration(spec: DurationSpec & { default?: undefined }): DurationSchema;
function duration(spec: DurationSpec): DurationSchema | z.ZodDefault<DurationSchema> {
  const min = durationMs(spec.min);
  const max = durationMs(spec.max);
  if ((spec.timer ?? true) && max > MAX_TIMER_MS) throw new Error(`a timer cannot wait ${spec.max}`);
  const example =
    spec.example ?? (spec.default === undefined ? spec.min : formatDuration(durationMs(spec.default)));
  const range = `from ${spec.min} to ${spec.max}`;
  const schema: DurationSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
    const parsed = parseDuration(value);
    if (parsed === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `not a duration; use a number and a unit (ms, s, m, h, d), e.g. "${example}", ${range}`,
      });
      return z.NEVER;
    }
    if (parsed < min || parsed > max) {
      ctx.addIssue({ code: 'custom', message: `out of range: must be ${range}` });
      return z.NEVER;
    }
    return parsed;
  });
  return spec.default === undefined ? schema : schema.default(durationMs(spec.default));
}

type DurationSchema = z.ZodPipe<
  z.ZodUnion<readonly [z.ZodString, z.ZodNumber]>,
  z.ZodTransform<number, string | number>
>;

/** A duration written in this file (a default, a bound): a typo is a programming error. */
function durationMs(text: string | number): number {
  const value = parseDuration(text);
  if (value === undefined) throw new Error(`not a duration: ${text}`);
  return value;
}

const network = z.enum(networks);

/** An issue on every item of `list` that names the same thing (by `key`) as an earlier one. */
function refuseDuplicates<T>(
  ctx: z.RefinementCtx,
  path: (string | number)[],
  list: readonly T[],
  key: (item: T) => string,
  what: string,
): void {
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    const k = key(item);
    const first = seen.get(k);
    if (first === undefined) seen.set(k, i);
    else {
      ctx.addIssue({
        code: 'custom',
        path: [...path, i],
        message: `duplicate: ${what} ${formatPath([...path, first])}`,
        input: item,
      });
    }
  });
}
const pageSize = z.number().int().min(1).max(100);
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
  .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'not a calendar date');
const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an EVM address: 0x and 40 hex digits');
const chainId = z.string().regex(/^\d+$/, 'an EVM chain id, e.g. "43114"');

const jobBase = {
  /** Cron expression, read in `service.timezone` (UTC by default). */
  schedule: cronSchedule,
  /** @defaultValue true */
  enabled: z.boolean().default(true),
  /** `start` fires one run at start-up, besides the schedule. @defaultValue false */
  runOnStart: z.boolean().default(false),
};

export const supplyJobSchema = z.strictObject({ ...jobBase });

export const transactionsJobSchema = z
  .strictObject({
    ...jobBase,
    /** @defaultValue ['mainnet'] */
    networks: z.array(network).min(1).default(['mainnet']),
    /** "all" asks without a status filter; "success"/"failed" are separate streams. @defaultValue ['all'] */
    statuses: z
      .array(z.enum(['all', 'success', 'failed']))
      .min(1)
      .default(['all']),
    /** @defaultValue 100 (items per request; the API's maximum) */
    pageSize: pageSize.default(100),
    /** Upper bound of requests per stream and run; the first run collects only this many pages. @defaultValue 10 */
    maxPages: z.number().int().min(1).max(10_000).default(10),
  })
  .superRefine((job, ctx) => {
    // Two names of one stream would share one cursor and read everything twice.
    refuseDuplicates(ctx, ['networks'], job.networks, canonicalNetwork, 'the same network as');
    refuseDuplicates(ctx, ['statuses'], job.statuses, (s) => s, 'the same status as');
  });

export const rewardsJobSchema = z
  .strictObject({
    ...jobBase,
    /** @defaultValue 'mainnet' */
    network: network.default('mainnet'),
    addresses: z.array(z.string()).default([]),
    nodeIds: z.array(z.string()).default([]),
    /** Currency of historical prices. @defaultValue 'usd' */
    currency: z.enum(currencies).default('usd'),
    /** @defaultValue 100 */
    pageSize: pageSize.default(100),
    /** Upper bound of requests per batch and run; a first backfill continues on the next run. @defaultValue 50 */
    maxPages: z.number().int().min(1).max(10_000).default(50),
    /**
     * When `report rewards` counts auto-renewed staking's compounded rewards as income:
     * `at-compounding` (at each cycle's end; the final reward then counts only what was not compounded
     * before) or `at-withdrawal` (when paid out). `--compounded` overrides it for one report.
     * @defaultValue 'at-compounding'
     */
    compoundedIncome: z.enum(['at-compounding', 'at-withdrawal']).default('at-compounding'),
  })
  .superRefine((job, ctx) => {
    if (job.addresses.length === 0 && job.nodeIds.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['addresses'], message: 'give at least one address or node id' });
    }
    job.addresses.forEach((address, i) => {
      const problem = addressProblem(address, job.network);
      if (problem) ctx.addIssue({ code: 'custom', path: ['addresses', i], message: problem, input: address });
    });
    job.nodeIds.forEach((nodeId, i) => {
      const problem = nodeIdProblem(nodeId);
      if (problem) ctx.addIssue({ code: 'custom', path: ['nodeIds', i], message: problem, input: nodeId });
    });
  });

/** The validators job's default schedule: every 15 minutes. */
export const VALIDATORS_SCHEDULE = '*/15 * * * *';

/**
 * `jobs.validators`: the configured node ids' validations (and pending rewards). `network`,
 * `nodeIds` and `addresses` default to those of `jobs.rewards` (filled in by the file's check below),
 * so adding the section to a config that tracks rewards is enough.
 */
export const validatorsJobSchema = z
  .strictObject({
    ...jobBase,
    /** @defaultValue '*\/15 * * * *' (every 15 minutes) */
    schedule: cronSchedule.default(VALIDATORS_SCHEDULE),
    /** @defaultValue jobs.rewards.network, else 'mainnet' */
    network: network.optional(),
    /** @defaultValue jobs.rewards.nodeIds */
    nodeIds: z.array(z.string()).optional(),
    /** Whose pending rewards are read besides the node ids'. @defaultValue jobs.rewards.addresses */
    addresses: z.array(z.string()).optional(),
    /** Validations per request. @defaultValue 100 */
    pageSize: pageSize.default(100),
    /** Upper bound of requests per node id and run (a long history continues on the next run). @defaultValue 10 */
    maxPages: z.number().int().min(1).max(1_000).default(10),
    /** Read pending rewards (rewards:listPending, 100 CU a batch). @defaultValue true */
    pendingRewards: z.boolean().default(true),
    /**
     * Pending rewards at most this often: a run reads them when the last read is older (less a
     * minute of slack); 0s reads them on every run. @defaultValue '0s'
     */
    pendingRewardsEvery: duration({ default: '0s', min: '0s', max: '7d', timer: false }),
    /**
     * How long each run's observation of an active validation (validation_observations) is kept:
     * the job prunes older ones after each run. @defaultValue '35d'
     */
    observationRetention: duration({ default: '35d', min: '1d', max: '3650d', timer: false }),
  })
  .superRefine((job, ctx) => {
    const network = job.network ?? 'mainnet';
    (job.addresses ?? []).forEach((address, i) => {
      const problem = addressProblem(address, network);
      if (problem) ctx.addIssue({ code: 'custom', path: ['addresses', i], message: problem, input: address });
    });
    (job.nodeIds ?? []).forEach((nodeId, i) => {
      const problem = nodeIdProblem(nodeId);
      if (problem) ctx.addIssue({ code: 'custom', path: ['nodeIds', i], message: problem, input: nodeId });
    });
    refuseDuplicates(ctx, ['nodeIds'], job.nodeIds ?? [], (id) => id, 'the same node id as');
  });

/**
 * Fills `jobs.validators` from `jobs.rewards` where it says nothing (network, node ids, addresses),
 * and refuses a validators section left without node ids, naming both keys.
 */
function resolveValidators(
  file: { jobs: { rewards?: RewardsJobConfig | undefined; validators?: ValidatorsJobConfig | undefined } },
  ctx: z.RefinementCtx,
): void {
  const validators = file.jobs.validators;
  if (!validators) return;
  const rewards = file.jobs.rewards;
  validators.network ??= rewards?.network ?? 'mainnet';
  validators.nodeIds ??=
    rewards && canonicalNetwork(rewards.network) === canonicalNetwork(validators.network)
      ? [...rewards.nodeIds]
      : [];
  validators.addresses ??=
    rewards && canonicalNetwork(rewards.network) === canonicalNetwork(validators.network)
      ? [...rewards.addresses]
      : [];
  if (validators.nodeIds.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['jobs', 'validators', 'nodeIds'],
      message:
        'no node id to watch: give jobs.validators.nodeIds, or jobs.rewards.nodeIds (on the same network) for it to default to',
    });
  }
}

const usageBase = {
  /** How far back the first run reaches. @defaultValue '7d' */
  lookback: duration({ default: '7d', min: '1h', max: '366d', timer: false }),
  responseCode: z.string().optional(),
};

export const usageSourceSchema = z.discriminatedUnion('source', [
  z.strictObject({
    source: z.literal('dataApi'),
    orgId: z.string().min(1).optional(),
    /** @defaultValue 'hourly' */
    timeInterval: z.enum(['minute', 'hourly', 'daily', 'weekly', 'monthly']).default('hourly'),
    groupBy: z.enum(['requestPath', 'responseCode', 'chainId', 'apiKeyId', 'requestType']).optional(),
    chainId: z.string().optional(),
    requestType: z.enum(['data', 'rpc']).optional(),
    apiKeyId: z.string().optional(),
    requestPath: z.string().optional(),
    ...usageBase,
  }),
  z.strictObject({
    source: z.literal('primaryNetworkRpc'),
    network,
    /** @defaultValue 'hourly' */
    timeInterval: z.enum(['hourly', 'daily', 'weekly', 'monthly']).default('hourly'),
    groupBy: z
      .enum(['rpcMethod', 'requestPath', 'responseCode', 'country', 'continent', 'userAgent'])
      .optional(),
    requestPath: z.string().optional(),
    country: z.string().optional(),
    continent: z.string().optional(),
    userAgent: z.string().optional(),
    rpcMethod: z.string().optional(),
    ...usageBase,
  }),
  z.strictObject({
    source: z.literal('subnetRpc'),
    /** One request per chain; none = every chain of the key, in one request. @defaultValue [] */
    chainIds: z.array(z.string().min(1)).default([]),
    /** @defaultValue 'hourly' */
    timeInterval: z.enum(['hourly', 'daily', 'weekly', 'monthly']).default('hourly'),
    groupBy: z.enum(['rpcMethod', 'responseCode', 'rlBypassToken']).optional(),
    rpcMethod: z.string().optional(),
    rlBypassApiToken: z.string().optional(),
    ...usageBase,
  }),
]);

export const usageMetricsJobSchema = z
  .strictObject({
    ...jobBase,
    sources: z.array(usageSourceSchema).min(1),
  })
  .superRefine((job, ctx) => {
    // Two sources that differ only in `lookback` (or a network's name) are one series and one cursor.
    refuseDuplicates(ctx, ['sources'], job.sources, seriesKey, 'the same series as');
    job.sources.forEach((source, i) => {
      if (source.source === 'subnetRpc') {
        refuseDuplicates(ctx, ['sources', i, 'chainIds'], source.chainIds, (c) => c, 'the same chain as');
      }
    });
  });

function seriesKey(source: z.output<typeof usageSourceSchema>): string {
  const { lookback: _lookback, ...series } = source;
  const network = 'network' in series ? { network: canonicalNetwork(series.network) } : {};
  // Any fixed order of the keys will do (not localeCompare: ICU's collator takes milliseconds to load).
  return JSON.stringify(Object.entries({ ...series, ...network }).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export const signaturesJobSchema = z
  .strictObject({
    ...jobBase,
    /** @defaultValue 'mainnet' */
    network: network.default('mainnet'),
    txHashes: z.array(z.string()).min(1),
    /**
     * Pauses, seconds, between the attempts of one run at a hash the aggregator could not sign
     * below a threshold of stake (one more attempt than pauses). @defaultValue [5, 10, 20]
     */
    belowQuorumPauses: z.array(z.number().min(0).max(300)).max(10).default([5, 10, 20]),
  })
  .superRefine((job, ctx) => {
    job.txHashes.forEach((hash, i) => {
      const problem = txHashProblem(hash);
      if (problem) ctx.addIssue({ code: 'custom', path: ['txHashes', i], message: problem, input: hash });
    });
  });

const exportWindow = z.union([
  z.literal('previous-day'),
  z.strictObject({ lastDays: z.number().int().min(1).max(366) }),
  z.strictObject({ firstDate: isoDate, lastDate: isoDate }).refine((w) => w.firstDate <= w.lastDate, {
    message: 'firstDate must not be after lastDate',
    path: ['firstDate'],
  }),
]);

const exportName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes (it names files)');

export const exportDefinitionSchema = z.discriminatedUnion('type', [
  z.strictObject({
    name: exportName,
    type: z.literal('TRANSACTION_EXPORT_EVM'),
    addresses: z.array(evmAddress).min(1),
    includeChains: z.array(chainId).min(1),
    /** @defaultValue 'previous-day' */
    window: exportWindow.default('previous-day'),
  }),
  z.strictObject({
    name: exportName,
    type: z.enum([
      'TRANSACTION_EXPORT_PRIMARY_NETWORK',
      'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING',
      'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE',
    ]),
    /** Network the addresses belong to, for their validation. @defaultValue 'mainnet' */
    network: network.default('mainnet'),
    addresses: z.array(z.string()).default([]),
    cChainEvmAddresses: z.array(evmAddress).default([]),
    /** `p-chain`, `x-chain`, `c-chain` or a Primary Network blockchain id. */
    includeChains: z.array(z.enum(primaryNetworkChains)).min(1),
    window: exportWindow.default('previous-day'),
  }),
]);

/** A count of the exports section, refused outside [min, max] with the range in the message. */
const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.number({ message }).int({ message }).min(min, { message }).max(max, { message });
};

/** A byte size, as bytes or text with a unit ("10GiB"), refused outside [min, max] with the range in the message. */
function byteSize(spec: { default: string; min: number; max: number }) {
  const message = `must be a size in bytes from ${spec.min} to ${spec.max}, or text such as "500MiB" or "10GiB" (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)`;
  return z
    .union([z.string(), z.number()])
    .transform((value, ctx) => {
      const bytes = parseSize(value);
      if (bytes === undefined || bytes < spec.min || bytes > spec.max) {
        ctx.addIssue({ code: 'custom', message, input: value });
        return z.NEVER;
      }
      return bytes;
    })
    .default(parseSize(spec.default) as number);
}

/** A host name or an IP address, without scheme, port or path: what a download URL's host is compared with. */
const downloadHost = z
  .string()
  .transform((host) =>
    host
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, ''),
  )
  .refine((host) => /^(?=.{1,253}$)[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$/.test(host) || isIP(host) !== 0, {
    message:
      'must be a host name or an IP address, without scheme, port or path (e.g. "exports.example.com")',
  });

export const exportsJobSchema = z
  .strictObject({
    ...jobBase,
    /** Where finished exports are downloaded. @defaultValue './data/exports' */
    directory: z.string().min(1).default('./data/exports'),
    /**
     * The delay between status reads of an operation ramps up to it: the first read 2 s after the
     * POST (or this, if shorter), doubling up to it, then 1.5 times longer each, up to
     * `maxPollInterval` (src/exports/policy.ts). @defaultValue '30s' (1s to 1h)
     */
    pollInterval: duration({ default: '30s', min: '1s', max: '1h' }),
    /** Longest delay between two status reads. @defaultValue '5m' (1s to 6h) */
    maxPollInterval: duration({ default: '5m', min: '1s', max: '6h' }),
    /**
     * How long an operation may stay RUNNING before the collector gives up polling it (the run
     * fails; the window counts as a failed try and is retried like ErrInternal). @defaultValue '6h' (1m to 7d)
     */
    timeout: duration({ default: '6h', min: '1m', max: '7d' }),
    /** Retries of a window after ErrInternal or a give-up; ErrInvalidRequest is never retried. @defaultValue 3 (0 to 10) */
    maxRetries: wholeNumber(0, 10).default(3),
    /** Backoff before the first retry, doubled for each further one, jittered. @defaultValue '10m' (1s to 1d) */
    retryDelay: duration({ default: '10m', min: '1s', max: '1d' }),
    /** A download gives up when the host sends no headers or no bytes for this long. @defaultValue '30s' (1s to 10m) */
    downloadIdleTimeout: duration({ default: '30s', min: '1s', max: '10m' }),
    /** Longest time one download may take, retries included. @defaultValue '1h' (10s to 1d) */
    downloadTimeout: duration({ default: '1h', min: '10s', max: '1d' }),
    /**
     * Attempts per download (5xx, 429 and network faults are retried with backoff); also the copies
     * of a file downloaded in all when they prove broken, before its load is marked failed.
     * @defaultValue 5 (1 to 20)
     */
    downloadAttempts: wholeNumber(1, 20).default(5),
    /**
     * Largest export file downloaded: past it the download stops, its partial file is removed and the
     * run fails. Bytes, or text such as "500MiB", "10GiB". @defaultValue '10GiB' (1 KiB to 1 TiB)
     */
    maxFileSize: byteSize({ default: '10GiB', min: 1024, max: 2 ** 40 }),
    /**
     * Hosts a download may reach whatever address they resolve to. Otherwise a download to a
     * loopback, private, link-local (cloud metadata), CGNAT, multicast, unspecified or reserved
     * address is refused unless the API base URL resolves into that same class. @defaultValue []
     */
    allowedDownloadHosts: z.array(downloadHost).default([]),
    /** How long `run exports` waits for operations to finish. @defaultValue '30m' (1s to 1d) */
    maxWait: duration({ default: '30m', min: '1s', max: '1d' }),
    definitions: z.array(exportDefinitionSchema).min(1),
  })
  .superRefine((job, ctx) => {
    const seen = new Set<string>();
    job.definitions.forEach((def, i) => {
      if (seen.has(def.name)) {
        ctx.addIssue({ code: 'custom', path: ['definitions', i, 'name'], message: 'names must be unique' });
      }
      seen.add(def.name);
      if (def.type !== 'TRANSACTION_EXPORT_EVM') {
        def.addresses.forEach((address, j) => {
          const problem = addressProblem(address, def.network);
          if (problem) {
            ctx.addIssue({
              code: 'custom',
              path: ['definitions', i, 'addresses', j],
              message: problem,
              input: address,
            });
          }
        });
      }
    });
  });

/** The maintenance job: it prunes by `retention` and lets the database reuse the space (jobs/maintenance.ts). */
export const maintenanceJobSchema = z.strictObject({
  /** Cron expression, read in `service.timezone`. @defaultValue '17 3 * * *' (daily at 03:17) */
  schedule: cronSchedule.default(MAINTENANCE_SCHEDULE),
  /** @defaultValue true */
  enabled: z.boolean().default(true),
  /** @defaultValue false */
  runOnStart: z.boolean().default(false),
  /**
   * Rows deleted per statement: each batch is its own short transaction, so other jobs commit
   * between two batches. @defaultValue 1000 (100 to 100000)
   */
  batchSize: z
    .number({ message: 'must be a whole number from 100 to 100000' })
    .int({ message: 'must be a whole number from 100 to 100000' })
    .min(100, { message: 'must be a whole number from 100 to 100000' })
    .max(100_000, { message: 'must be a whole number from 100 to 100000' })
    .default(1000),
});

/**
 * A time zone Intl knows: UTC, a name on Intl's list of canonical IANA zones, or one a date
 * formatter accepts (an alias such as "Asia/Calcutta"). The formatter is tried last: its first
 * set-up loads ICU's locale data, about 10 ms of every command's start.
 */
function isTimeZone(tz: string): boolean {
  if (tz === 'UTC' || Intl.supportedValuesOf('timeZone').includes(tz)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const timezone = z.string().superRefine((tz, ctx) => {
  if (!isTimeZone(tz)) {
    ctx.addIssue({ code: 'custom', message: 'not an IANA time zone, e.g. "UTC" or "Europe/Paris"' });
  }
});

/** The long-running service (`start`): how it fires and runs jobs. */
export const serviceSchema = z.strictObject({
  /** Time zone the `schedule` expressions are read in. @defaultValue 'UTC' */
  timezone: timezone.default('UTC'),
  /** Jobs one worker process runs at once. @defaultValue 2 */
  concurrency: z.number().int().min(1).max(64).default(2),
  /** On SIGTERM/SIGINT, how long active jobs may take to finish before the process exits. @defaultValue '30s' */
  shutdownGrace: duration({ default: '30s', min: '1s', max: '1h' }),
  /**
   * How long a running job may go without its worker's heartbeat before another worker takes it over
   * (its process died or hangs; BullMQ's stalled-job recovery). The worker renews its jobs' locks at
   * half this, and looks for stalled jobs this often. @defaultValue '30s' (1s to 10m)
   */
  stalledJobTimeout: duration({ default: '30s', min: '1s', max: '10m' }),
  /**
   * BullMQ key prefix in Redis: several collectors can share one Redis with different prefixes. In
   * braces (`{glacier}`) it is a Redis Cluster hash tag: every key of the collector in one slot, as
   * BullMQ's scripts need on a Cluster or a clustering proxy. @defaultValue 'glacier'
   */
  queuePrefix: z
    .string()
    .regex(
      /^(?:[A-Za-z0-9_-]{1,32}|\{[A-Za-z0-9_-]{1,30}\})$/,
      'letters, digits, "-" and "_", at most 32; or such a name in braces, e.g. {glacier} (a Redis Cluster hash tag)',
    )
    .default('glacier'),
});

/**
 * The compute-unit budget every worker shares through Redis: requests wait for their endpoint's
 * units, so N workers together stay within the key's limits. Defaults to the tier's limits.
 */
export const budgetSchema = z.strictObject({
  /** The API key's rate-limit tier. @defaultValue 'Free' with an API key, 'none' without */
  tier: z.enum(tierNames).optional(),
  /** @defaultValue the tier's compute units per minute */
  computeUnitsPerMinute: z.number().int().min(1).optional(),
  /** @defaultValue the tier's compute units per day */
  computeUnitsPerDay: z.number().int().min(1).optional(),
});

/**
 * The cap on records set aside (rejected_records) per job and run: a hostile or broken upstream
 * sending a page of bad records after another is bounded in rows, bytes and log lines. Beyond it,
 * records new to the table are counted (`glacier_rejected_records_dropped_total`), not kept; those
 * already kept are still seen again.
 */
export const setAsideSchema = z.strictObject({
  /** New records kept per job and run. @defaultValue 100 */
  maxRecordsPerRun: wholeNumber(1, 100_000).default(100),
  /** Bytes of their raw JSON kept per job and run (each record is at most 16 KiB). @defaultValue '1MiB' */
  maxBytesPerRun: byteSize({ default: '1MiB', min: 16 * 1024, max: 1024 ** 3 }),
});

/** Each job's section schema, by its key under `jobs`. */
export const jobSectionSchemas = {
  supply: supplyJobSchema,
  transactions: transactionsJobSchema,
  rewards: rewardsJobSchema,
  usageMetrics: usageMetricsJobSchema,
  signatures: signaturesJobSchema,
  exports: exportsJobSchema,
  maintenance: maintenanceJobSchema,
} as const;

export const fileConfigSchema = z
  .strictObject({
    jobs: z
      .strictObject({
        supply: supplyJobSchema.optional(),
        transactions: transactionsJobSchema.optional(),
        rewards: rewardsJobSchema.optional(),
        validators: validatorsJobSchema.optional(),
        usageMetrics: usageMetricsJobSchema.optional(),
        signatures: signaturesJobSchema.optional(),
        exports: exportsJobSchema.optional(),
        /** Present unless written otherwise: `enabled: false` turns it off. */
        maintenance: maintenanceJobSchema.prefault({}),
      })
      .prefault({}),
    client: z
      .strictObject({
        /** Per HTTP attempt. @defaultValue '30s' */
        attemptTimeout: duration({ default: clientDefaults.attemptTimeoutMs, min: '1s', max: '10m' }),
        /** Per call, retries and waits included. @defaultValue '2m' */
        callTimeout: duration({ default: clientDefaults.callTimeoutMs, min: '1s', max: '1h' }),
        /** @defaultValue 5 (the client's own default) */
        maxAttempts: z.number().int().min(1).max(20).default(defaultRetryPolicy.maxAttempts),
      })
      .refine((client) => client.callTimeout >= client.attemptTimeout, {
        path: ['callTimeout'],
        message: 'must be at least client.attemptTimeout (a call is one attempt or more)',
      })
      .prefault({}),
    service: serviceSchema.prefault({}),
    budget: budgetSchema.prefault({}),
    retention: retentionSchema.prefault({}),
    setAside: setAsideSchema.prefault({}),
  })
  .superRefine((file, ctx) => {
    refuseRetentionBelowRereads(file, ctx);
    resolveValidators(file, ctx);
  });

export type FileConfig = z.output<typeof fileConfigSchema>;
export type ServiceConfig = z.output<typeof serviceSchema>;
export type SetAsideConfig = z.output<typeof setAsideSchema>;
export type MaintenanceJobConfig = z.output<typeof maintenanceJobSchema>;
export type JobsConfig = FileConfig['jobs'];
export type TransactionsJobConfig = z.output<typeof transactionsJobSchema>;
export type RewardsJobConfig = z.output<typeof rewardsJobSchema>;
export type ValidatorsJobConfig = z.output<typeof validatorsJobSchema>;
export type UsageMetricsJobConfig = z.output<typeof usageMetricsJobSchema>;
export type UsageSourceConfig = z.output<typeof usageSourceSchema>;
export type SignaturesJobConfig = z.output<typeof signaturesJobSchema>;
export type ExportsJobConfig = z.output<typeof exportsJobSchema>;
export type ExportDefinition = z.output<typeof exportDefinitionSchema>;
export type ExportWindow = z.output<typeof exportWindow>;
