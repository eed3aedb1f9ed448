import cron from 'node-cron';
import { z } from 'zod';
import { currencies, networks, tierNames } from '../upstream/endpoints.js';
import { primaryNetworkChains } from '../upstream/index.js';
import { parseDuration } from './durations.js';
import { addressProblem, nodeIdProblem, txHashProblem } from './identifiers.js';

/**
 * The config file (YAML or JSON): what to collect and when. Every object is strict, so a misspelt
 * key is an error rather than a silently ignored setting. Defaults are documented next to each field
 * and in docs/configuration.md (a test keeps the two in step).
 */

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

const duration = (example: string) =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `not a duration; use a number and a unit, e.g. "${example}"` });
      return z.NEVER;
    }
    return ms;
  });

const network = z.enum(networks);
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

export const transactionsJobSchema = z.strictObject({
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

const usageBase = {
  /** How far back the first run reaches. @defaultValue '7d' */
  lookback: duration('7d').default(7 * 86_400_000),
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

export const usageMetricsJobSchema = z.strictObject({
  ...jobBase,
  sources: z.array(usageSourceSchema).min(1),
});

export const signaturesJobSchema = z
  .strictObject({
    ...jobBase,
    /** @defaultValue 'mainnet' */
    network: network.default('mainnet'),
    txHashes: z.array(z.string()).min(1),
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

/** A duration of the exports section, refused outside [min, max] with the range in the message. */
const exportDuration = (example: string, min: string, max: string) =>
  duration(example).refine(
    (ms) => ms >= (parseDuration(min) ?? 0) && ms <= (parseDuration(max) ?? Number.POSITIVE_INFINITY),
    { message: `must be between ${min} and ${max}` },
  );

/** A count of the exports section, refused outside [min, max] with the range in the message. */
const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.number({ message }).int({ message }).min(min, { message }).max(max, { message });
};

export const exportsJobSchema = z
  .strictObject({
    ...jobBase,
    /** Where finished exports are downloaded. @defaultValue './data/exports' */
    directory: z.string().min(1).default('./data/exports'),
    /**
     * Delay before the first status read of an operation; each further read waits 1.5 times longer,
     * up to `maxPollInterval`. @defaultValue '30s' (1s to 1h)
     */
    pollInterval: exportDuration('30s', '1s', '1h').default(30_000),
    /** Longest delay between two status reads. @defaultValue '5m' (1s to 6h) */
    maxPollInterval: exportDuration('5m', '1s', '6h').default(5 * 60_000),
    /**
     * How long an operation may stay RUNNING before the collector gives up polling it (the run
     * fails; the window counts as a failed try and is retried like ErrInternal). @defaultValue '6h' (1m to 7d)
     */
    timeout: exportDuration('6h', '1m', '7d').default(6 * 3_600_000),
    /** Retries of a window after ErrInternal or a give-up; ErrInvalidRequest is never retried. @defaultValue 3 (0 to 10) */
    maxRetries: wholeNumber(0, 10).default(3),
    /** Backoff before the first retry, doubled for each further one, jittered. @defaultValue '10m' (1s to 1d) */
    retryDelay: exportDuration('10m', '1s', '1d').default(10 * 60_000),
    /** A download gives up when the host sends no headers or no bytes for this long. @defaultValue '30s' (1s to 10m) */
    downloadIdleTimeout: exportDuration('30s', '1s', '10m').default(30_000),
    /** Longest time one download may take, retries included. @defaultValue '1h' (10s to 1d) */
    downloadTimeout: exportDuration('1h', '10s', '1d').default(3_600_000),
    /** Attempts per download (5xx, 429 and network faults are retried with backoff). @defaultValue 5 (1 to 20) */
    downloadAttempts: wholeNumber(1, 20).default(5),
    /** How long `run exports` waits for operations to finish. @defaultValue '30m' (1s to 1d) */
    maxWait: exportDuration('30m', '1s', '1d').default(30 * 60_000),
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

const timezone = z.string().superRefine((tz, ctx) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
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
  shutdownGrace: duration('30s').default(30_000),
  /** BullMQ key prefix in Redis: several collectors can share one Redis with different prefixes. @defaultValue 'glacier' */
  queuePrefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, "-" and "_", at most 32')
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

export const fileConfigSchema = z.strictObject({
  jobs: z
    .strictObject({
      supply: supplyJobSchema.optional(),
      transactions: transactionsJobSchema.optional(),
      rewards: rewardsJobSchema.optional(),
      usageMetrics: usageMetricsJobSchema.optional(),
      signatures: signaturesJobSchema.optional(),
      exports: exportsJobSchema.optional(),
    })
    .default({}),
  client: z
    .strictObject({
      /** Per HTTP attempt. @defaultValue '30s' */
      attemptTimeout: duration('30s').default(30_000),
      /** Per call, retries and waits included. @defaultValue '2m' */
      callTimeout: duration('2m').default(120_000),
      /** @defaultValue 5 */
      maxAttempts: z.number().int().min(1).max(20).default(5),
    })
    .prefault({}),
  service: serviceSchema.prefault({}),
  budget: budgetSchema.prefault({}),
});

export type FileConfig = z.output<typeof fileConfigSchema>;
export type ServiceConfig = z.output<typeof serviceSchema>;
export type JobsConfig = FileConfig['jobs'];
export type TransactionsJobConfig = z.output<typeof transactionsJobSchema>;
export type RewardsJobConfig = z.output<typeof rewardsJobSchema>;
export type UsageMetricsJobConfig = z.output<typeof usageMetricsJobSchema>;
export type UsageSourceConfig = z.output<typeof usageSourceSchema>;
export type SignaturesJobConfig = z.output<typeof signaturesJobSchema>;
export type ExportsJobConfig = z.output<typeof exportsJobSchema>;
export type ExportDefinition = z.output<typeof exportDefinitionSchema>;
export type ExportWindow = z.output<typeof exportWindow>;
