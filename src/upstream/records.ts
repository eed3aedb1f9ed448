/**
 * The record, not the page, is the unit of trust: an answer whose envelope is right (the list is a
 * list, the page token a token) is split into its records, and each record passes its schema and
 * bounds or is set aside on its own, with what failed. The page's good records are stored and its
 * cursor moves on; the set-aside ones go to `rejected_records` (src/store/rejected-records.ts),
 * where `run <job> --retry-rejected` checks them again with a later version's schemas
 * (`recheckRecord`), without asking the API.
 */
import type { z } from 'zod';
import { DriftCollector, type DriftName, findDrift } from './drift.js';
import type { EndpointName } from './endpoints.js';
import { BOUND } from './fields.js';
import { parseJsonLossless } from './json.js';
import {
  cb58Id,
  evmChainId,
  evmHash,
  historicalRewardSchema,
  rpcUsageMetricsValueSchema,
  signatureResponseSchema,
  transactionSchema,
  usageMetricsValueSchema,
  usageRecordSchema,
} from './schemas.js';
import { summarizeIssues } from './wire.js';

/** Why a record was set aside: a failed shape (`schema`) or a value outside its domain bound (`bounds`). */
export const REJECT_REASONS = ['schema', 'bounds'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export interface RejectedRecord {
  /** The record as sent (a JSON value). */
  raw: unknown;
  reason: RejectReason;
  /** The failing fields' paths within the record, e.g. `reward.denomination`; at most 10. */
  fields: string[];
  /** `field: rule; …`, bounded. */
  problems: string;
  /** The record's natural key within its answer, when the fields that make it are valid. */
  key: string | undefined;
}

/** Where findings come from: an API endpoint, or the rows of a downloaded export file. */
export type FindingsEndpoint = EndpointName | 'exportFile';

/** What the checks of one answer found beside the records that passed. */
export interface Findings {
  endpoint: FindingsEndpoint;
  rejected: RejectedRecord[];
  drift: DriftName[];
}

/** How the records of one list are checked: their schema, their key, their path for drift names. */
export interface RecordSpec<T> {
  schema: z.ZodType<T>;
  /** The natural key from the raw record, when its fields are valid. */
  key: (raw: unknown) => string | undefined;
  /** The list's path in the answer, e.g. `transactions[]`, for drift names. */
  path: string;
  /** Where drift is looked for when not in the whole record: a part of it, by its own schema. */
  drift?: { schema: z.ZodType; of: (raw: unknown) => unknown };
}

const MAX_FIELDS = 10;

function field(raw: unknown, name: string): unknown {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)[name]
    : undefined;
}

/** `schema`'s value of `value`, or undefined when it fails. */
function valid(schema: z.ZodType<string>, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The record specs, per endpoint that answers a list of records (or one record, for signatures). */
export const recordSpecs = {
  transactions: {
    schema: transactionSchema,
    key: (raw) => {
      const chainId = valid(evmChainId, field(raw, 'chainId'));
      const txHash = valid(evmHash, field(raw, 'txHash'));
      return chainId && txHash ? `${chainId}:${txHash}` : undefined;
    },
    path: 'transactions[]',
  },
  rewards: {
    schema: historicalRewardSchema,
    key: (raw) => valid(cb58Id, field(raw, 'utxoId')),
    path: 'historicalRewards[]',
  },
  apiUsageMetrics: usageSpec(usageMetricsValueSchema),
  primaryNetworkRpcUsageMetrics: usageSpec(rpcUsageMetricsValueSchema),
  subnetRpcUsageMetrics: usageSpec(rpcUsageMetricsValueSchema),
  /** A signature answer is one record; its key is the request's (network, txHash). */
  signatures: { schema: signatureResponseSchema, key: () => undefined, path: '' },
} satisfies Partial<Record<EndpointName, RecordSpec<unknown>>>;

export type RecordEndpoint = keyof typeof recordSpecs;

/** Usage records: `{ timestamp, value }`, keyed by bucket, grouping and group value. */
function usageSpec<V extends typeof usageMetricsValueSchema | typeof rpcUsageMetricsValueSchema>(value: V) {
  return {
    schema: usageRecordSchema(value),
    key: (raw) => {
      const timestamp = field(raw, 'timestamp');
      const value = field(raw, 'value');
      const groupedBy = field(value, 'groupedBy');
      const groupValue = field(value, 'groupValue');
      if (!Number.isSafeInteger(timestamp) || typeof groupedBy !== 'string' || groupedBy.length > 64) {
        return undefined;
      }
      if (groupValue !== undefined && typeof groupValue !== 'string' && typeof groupValue !== 'number') {
        return undefined;
      }
      return `${timestamp}/${groupedBy}/${groupValue ?? ''}`;
    },
    // The value's path in the answer; the record's `timestamp` is its bucket's own field.
    path: 'metrics[].values[]',
    drift: { schema: value, of: (raw: unknown) => field(raw, 'value') },
  } satisfies RecordSpec<unknown>;
}

/** The failing record's reason, fields and problems, from its schema issues. */
function rejection(
  raw: unknown,
  issues: readonly z.core.$ZodIssue[],
  key: string | undefined,
): RejectedRecord {
  const bounds = issues.every((i) => i.message.startsWith(BOUND));
  const fields = [
    ...new Set(issues.map((i) => (i.path.length > 0 ? i.path.map(String).join('.') : '(record)'))),
  ];
  return {
    raw,
    reason: bounds ? 'bounds' : 'schema',
    fields: fields.slice(0, MAX_FIELDS),
    problems: summarizeIssues(issues),
    key,
  };
}

export type Checked<T> = { ok: true; value: T } | { ok: false; rejected: RejectedRecord };

/** One record against its spec: the parsed value, or why it is set aside. */
export function checkRecord<T>(spec: RecordSpec<T>, raw: unknown): Checked<T> {
  const parsed = spec.schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, rejected: rejection(raw, parsed.error.issues, spec.key(raw)) };
}

/** The records of a list: those that pass, those set aside; drift of every record into `drift`. */
export function checkRecords<T>(
  spec: RecordSpec<T>,
  list: readonly unknown[],
  drift: DriftCollector,
  path = spec.path,
): { items: T[]; rejected: RejectedRecord[] } {
  const items: T[] = [];
  const rejected: RejectedRecord[] = [];
  for (const raw of list) {
    drift.nextRecord();
    if (spec.drift) findDrift(spec.drift.schema, spec.drift.of(raw), path, drift);
    else findDrift(spec.schema, raw, path, drift);
    const checked = checkRecord(spec, raw);
    if (checked.ok) items.push(checked.value);
    else rejected.push(checked.rejected);
  }
  return { items, rejected };
}

/** The findings of an answer, or undefined when there are none (the usual case). */
export function findingsOf(
  endpoint: FindingsEndpoint,
  rejected: RejectedRecord[],
  drift: DriftCollector,
): Findings | undefined {
  const names = drift.result();
  return rejected.length === 0 && names.length === 0 ? undefined : { endpoint, rejected, drift: names };
}

/**
 * A record set aside earlier, its stored text checked again by today's schema (`run <job>
 * --retry-rejected`): parsed as the client parses its answer (a rewards price without a float).
 */
export function recheckRecord<E extends RecordEndpoint>(
  endpoint: E,
  text: string,
): Checked<(typeof recordSpecs)[E] extends RecordSpec<infer T> ? T : never> {
  let raw: unknown;
  try {
    raw = endpoint === 'rewards' ? parseJsonLossless(text) : JSON.parse(text);
  } catch {
    return {
      ok: false,
      rejected: {
        raw: text,
        reason: 'schema',
        fields: ['(record)'],
        problems: '(record): not JSON',
        key: undefined,
      },
    };
  }
  return checkRecord(recordSpecs[endpoint] as unknown as RecordSpec<never>, raw);
}

export { DriftCollector, type DriftName };
