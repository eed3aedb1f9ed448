/**
 * Fault configuration: what can go wrong, per endpoint, in a run. It is also the format of the
 * `--faults faults.json` file:
 *
 * ```json
 * {
 *   "seed": 7,
 *   "all": { "latencyMs": [5, 40], "errorRate": 0.02 },
 *   "endpoints": {
 *     "transactions": { "plan": [{ "status": 503 }, { "status": 503 }, { "kind": "ok" }], "truncateRate": 0.05 },
 *     "rewards": { "rateLimitRate": 0.1, "rateLimitBurst": 3, "retryAfterSeconds": 2 },
 *     "download": { "resetRate": 0.1 }
 *   }
 * }
 * ```
 *
 * `signatures` answers the signature aggregator per transaction: `{ "<txHash>": [steps] }`, each step
 * `{ status, message? }` (the API's JSON error body with that message), `{ status, text }` (a body that
 * is not JSON) or `{ kind: "ok" }` (the signature). Successive requests for the hash take the steps in
 * order and the last one stays: `[{ "status": 400, "message": "failed to connect to a threshold of
 * stake" }, { "kind": "ok" }]` is below quorum once, then aggregated; `[{ "status": 400 }]` is refused
 * forever. Other hashes are answered as usual.
 *
 * `all` applies to every endpoint; an endpoint's own settings override it field by field (its `plan`
 * replaces the one of `all`, which each endpoint otherwise consumes on its own). Plan steps are
 * consumed in order by successive requests to the endpoint, before the rates apply. Rates are shares
 * in 0..1 drawn from a RNG seeded by `seed` (default: the simulator's seed), one stream per endpoint.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { type EndpointName, endpointNames } from '../upstream/endpoints.js';

export type FaultEndpoint = EndpointName | 'download';

export type FaultStep =
  | { status: number; retryAfterSeconds?: number }
  | { kind: 'reset' | 'truncate' | 'malformed' | 'extraFields' | 'badRecord' | 'drift' | 'ok' }
  | { latencyMs: number };

export interface EndpointFaults {
  /** Share 0..1 of answers that are errors, picked among `errorStatuses`. */
  errorRate?: number;
  /** @defaultValue [500, 502, 503] */
  errorStatuses?: number[];
  /** Share 0..1 of requests that start a burst of 429s. */
  rateLimitRate?: number;
  /** Consecutive 429s in a burst. @defaultValue 3 */
  rateLimitBurst?: number;
  /** `retry-after` of injected 429s, seconds. @defaultValue 1 */
  retryAfterSeconds?: number;
  /** Added latency, ms: fixed, or a [min, max] range. */
  latencyMs?: number | [number, number];
  /** Share of requests whose socket is destroyed without an answer. */
  resetRate?: number;
  /** Share of success answers whose JSON body is cut in half (status stays 200/201). */
  truncateRate?: number;
  /** Share of success answers whose envelope has the wrong shape (the list is no list): a broken answer. */
  malformedRate?: number;
  /** Share of success answers with unknown fields added to every object (still a success). */
  extraFieldsRate?: number;
  /**
   * Share of success answers with one record that fails its schema or a domain bound (the page's
   * middle record; a download: its middle row without its key): the collector sets it aside.
   */
  badRecordRate?: number;
  /**
   * Share of success answers with drift: fields and enum values the OpenAPI does not list, and in
   * a transactions page a contract creation without `to` and one with `to: null`; a download with
   * mixed line endings, a `__proto__` column and a row out of bounds.
   */
  driftRate?: number;
  /** One-shot faults consumed in order, before the rates apply. */
  plan?: FaultStep[];
}

/** One answer of the signature aggregator for one transaction (see `FaultConfig.signatures`). */
export type SignatureStep =
  | { status: number; message?: string }
  | { status: number; text: string }
  | { kind: 'ok' };

export interface FaultConfig {
  seed?: number;
  /** Per-transaction answers of the signatures endpoint, by txHash; the last step stays. */
  signatures?: Record<string, SignatureStep[]>;
  all?: EndpointFaults;
  endpoints?: Partial<Record<FaultEndpoint, EndpointFaults>>;
}

const share = z.number().min(0).max(1);
const status = z.number().int().min(100).max(599);
const ms = z.number().int().min(0);

const stepSchema = z.union(
  [
    z.strictObject({ status, retryAfterSeconds: z.number().int().min(0).optional() }),
    z.strictObject({
      kind: z.enum(['reset', 'truncate', 'malformed', 'extraFields', 'badRecord', 'drift', 'ok']),
    }),
    z.strictObject({ latencyMs: ms }),
  ],
  {
    error:
      'a plan step is { status, retryAfterSeconds? }, { kind: reset|truncate|malformed|extraFields|badRecord|drift|ok } or { latencyMs }',
  },
);

const endpointFaultsSchema = z.strictObject({
  errorRate: share.optional(),
  errorStatuses: z.array(status).min(1).optional(),
  rateLimitRate: share.optional(),
  rateLimitBurst: z.number().int().min(1).optional(),
  retryAfterSeconds: z.number().int().min(0).optional(),
  latencyMs: z
    .union([ms, z.tuple([ms, ms])])
    .refine(
      (v) => typeof v === 'number' || v[0] <= v[1],
      'latencyMs range must be [min, max] with min <= max',
    )
    .optional(),
  resetRate: share.optional(),
  truncateRate: share.optional(),
  malformedRate: share.optional(),
  extraFieldsRate: share.optional(),
  badRecordRate: share.optional(),
  driftRate: share.optional(),
  plan: z.array(stepSchema).optional(),
});

const faultEndpointNames = [...endpointNames, 'download'] as const;

const signatureStepSchema = z.union(
  [
    z.strictObject({ status: z.number().int().min(400).max(599), message: z.string().optional() }),
    z.strictObject({ status: z.number().int().min(400).max(599), text: z.string() }),
    z.strictObject({ kind: z.literal('ok') }),
  ],
  { error: 'a signatures step is { status (400..599), message? }, { status, text } or { kind: ok }' },
);

export const faultConfigSchema = z.strictObject({
  seed: z.number().int().optional(),
  signatures: z.record(z.string(), z.array(signatureStepSchema).min(1)).optional(),
  all: endpointFaultsSchema.optional(),
  endpoints: z.partialRecord(z.enum(faultEndpointNames), endpointFaultsSchema).optional(),
});

/** Validates a fault configuration; the error names the bad key, the bad value and the rule. */
export function parseFaultConfig(value: unknown, source = 'faults'): FaultConfig {
  const result = faultConfigSchema.safeParse(value);
  if (result.success) return result.data as FaultConfig;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? '(root)' : path}: ${issue.message}`;
  });
  throw new Error(`Invalid fault configuration in ${source}: ${problems.join('; ')}`);
}

/** Reads and validates a faults JSON file. */
export async function loadFaultConfig(path: string): Promise<FaultConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new Error(`Cannot read fault configuration ${path}`, { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new Error(`Fault configuration ${path} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  return parseFaultConfig(value, path);
}
