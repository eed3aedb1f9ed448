/**
 * The record, not the page, is the unit of trust: an answer whose envelope is right (the list is a
 * list, the page token a token) is split into its records, and each record passes its schema and
 * bounds or is set aside on its own, with what failed. The page's good records are stored and its
 * cursor moves on; the set-aside ones go to `rejected_records` (src/store/rejected-records.ts),
 * where `run <job> --retry-rejected` checks them again with a later version's schemas
 * (`recheckRecord`), without asking the API.
 *
 * Drift: what an answer carries that the OpenAPI does not list. Unknown fields are kept (the
 * schemas are loose) and unknown values of the open enums are stored as sent; both are also seen
 * here, named by their path in the answer (`historicalRewards[].simDriftField`,
 * `transactions[].method.callType=CONTRACT_DEPLOY`), so an operator learns of a change in the API
 * before a dashboard goes wrong (docs/operations.md, "The API changed").
 *
 * The walk reads the schemas through zod's public classes (objects' `shape`, arrays' `element`,
 * optionals' `unwrap()`, pipes' `in`/`out`), and the open enums' known values from their registry
 * (enums.ts).
 */
import * as z from 'zod';
import { excerpt } from '../escape/excerpt.js';
import { settledCycleSchema } from './auto-renew.js';
import type { EndpointName } from './endpoints.js';
import { openEnums } from './enums.js';
import { BOUND } from './fields.js';
import { NODE_ID } from './identifiers.js';
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
import { pendingRewardSchema, validatorSchema } from './staking-schemas.js';

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
  /**
   * Without a key: the record without the fields its schema does not list (`knownPart`), what names
   * it, so that a record seen again with other unknown fields is the same row.
   */
  stable?: unknown;
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
  /** A validation: one per (node id, staking tx) on its network. */
  validatorDetails: {
    schema: validatorSchema,
    key: (raw) => {
      const node = valid(nodeIdShape, field(raw, 'nodeId'));
      const tx = valid(cb58Id, field(raw, 'txHash'));
      return node && tx ? `${node}:${tx}` : undefined;
    },
    path: 'validators[]',
  },
  /** A pending reward: one per (staking tx, reward type) on its network. */
  pendingRewards: {
    schema: pendingRewardSchema,
    key: (raw) => {
      const tx = valid(cb58Id, field(raw, 'txHash'));
      const type = field(raw, 'rewardType');
      return tx && typeof type === 'string' && /^[A-Z_]{1,64}$/.test(type) ? `${tx}:${type}` : undefined;
    },
    path: 'pendingRewards[]',
  },
  /** A settled auto-renewed cycle (ACP-236): one per (staking tx, cycle index) on its network. */
  validatorCycles: {
    schema: settledCycleSchema,
    key: (raw) => {
      const tx = valid(cb58Id, field(raw, 'stakingTxHash'));
      const index = field(raw, 'cycleIndex');
      return tx && Number.isSafeInteger(index) ? `${tx}:${index}` : undefined;
    },
    path: 'cycles[]',
  },
} satisfies Partial<Record<EndpointName, RecordSpec<unknown>>>;

export type RecordEndpoint = keyof typeof recordSpecs;

const nodeIdShape = z.string().regex(NODE_ID);

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
  schema: z.ZodType,
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
    ...(key === undefined && { stable: knownPart(schema, raw) }),
  };
}

export type Checked<T> = { ok: true; value: T } | { ok: false; rejected: RejectedRecord };

/** One record against its spec: the parsed value, or why it is set aside. */
export function checkRecord<T>(spec: RecordSpec<T>, raw: unknown): Checked<T> {
  const parsed = spec.schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, rejected: rejection(spec.schema, raw, parsed.error.issues, spec.key(raw)) };
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

const MAX_ISSUES = 5;
const ISSUES_LENGTH = 600;

/** A schema failure in one line: the first few issues, each with its path, bounded. */
export function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues
    .slice(0, MAX_ISSUES)
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(root)'}: ${i.message}`);
  if (issues.length > MAX_ISSUES) shown.push(`(+${issues.length - MAX_ISSUES} more)`);
  const text = shown.join('; ');
  return text.length > ISSUES_LENGTH ? `${text.slice(0, ISSUES_LENGTH)}…` : text;
}

export type DriftKind = 'field' | 'enumValue';

export interface DriftName {
  kind: DriftKind;
  /** The field's path, or `path=value` for an enum value; control characters shown, bounded. */
  name: string;
  /** Records (or answers) of the page that carried it. */
  count: number;
}

/** Names longer than this are cut: a hostile key is not stored or printed whole. */
const MAX_NAME_LENGTH = 96;

/** Collects drift while walking one answer; `seen` counts each name once per record. */
export class DriftCollector {
  private readonly names = new Map<string, DriftName>();
  private record = new Set<string>();

  /** Starts a new record: a name seen twice in one record counts once. */
  nextRecord(): void {
    this.record = new Set();
  }

  add(kind: DriftKind, name: string): void {
    const shown = excerpt(name, MAX_NAME_LENGTH);
    const key = `${kind}\n${shown}`;
    if (this.record.has(key)) return;
    this.record.add(key);
    const found = this.names.get(key);
    if (found) found.count++;
    else this.names.set(key, { kind, name: shown, count: 1 });
  }

  result(): DriftName[] {
    return [...this.names.values()];
  }
}

/** The schema under optional, nullable, default and pipe wrappers, and the open enum on the way, if any. */
function unwrap(schema: z.ZodType): { core: z.ZodType; known: readonly string[] | undefined } {
  let s: z.ZodType = schema;
  let known = openEnums.get(s)?.known;
  for (let depth = 0; depth < 16; depth++) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe) {
      // An open enum piped into a narrower shape, or a preprocess into its target.
      const inner = s.in as z.ZodType;
      known ??= openEnums.get(inner)?.known;
      s = (inner instanceof z.ZodTransform ? s.out : inner) as z.ZodType;
    } else break;
    known ??= openEnums.get(s)?.known;
  }
  return { core: s, known };
}

/** What the walk needs of a schema: its known enum values, its fields, its element. */
interface Shape {
  known?: ReadonlySet<string>;
  fields?: Map<string, Shape>;
  element?: Shape;
}

/** Compiled once per schema (the walk runs on every record of every page). */
const shapes = new WeakMap<z.ZodType, Shape>();

function shapeOf(schema: z.ZodType): Shape {
  const found = shapes.get(schema);
  if (found) return found;
  const shape: Shape = {};
  // Set before the children: a schema that refers to itself is walked as far as the value goes.
  shapes.set(schema, shape);
  const { core, known } = unwrap(schema);
  if (known) shape.known = new Set(known);
  else if (core instanceof z.ZodObject) {
    shape.fields = new Map(
      Object.entries(core.shape as Record<string, z.ZodType>).map(([k, v]) => [k, shapeOf(v)]),
    );
  } else if (core instanceof z.ZodArray) shape.element = shapeOf(core.element as z.ZodType);
  return shape;
}

/**
 * `value` without the fields `schema` does not list, at any depth, each object's fields in the
 * schema's order: what stays of a record whatever drift it carries (and in whatever order).
 */
export function knownPart(schema: z.ZodType, value: unknown): unknown {
  return strip(shapeOf(schema), value);
}

function strip(shape: Shape, value: unknown): unknown {
  if (shape.fields && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of shape.fields) {
      if (Object.hasOwn(value, key)) out[key] = strip(field, (value as Record<string, unknown>)[key]);
    }
    return out;
  }
  const element = shape.element;
  if (element && Array.isArray(value)) return value.map((item) => strip(element, item));
  return value;
}

/** Adds to `out` every field and open-enum value of `value` that `schema` does not list. */
export function findDrift(schema: z.ZodType, value: unknown, path: string, out: DriftCollector): void {
  walk(shapeOf(schema), value, path, out);
}

function walk(shape: Shape, value: unknown, path: string, out: DriftCollector): void {
  if (value === null || value === undefined) return;
  if (shape.known) {
    if (typeof value === 'string' && !shape.known.has(value)) out.add('enumValue', `${path}=${value}`);
    return;
  }
  if (shape.fields && typeof value === 'object' && !Array.isArray(value)) {
    const fields = shape.fields;
    for (const key of Object.keys(value)) {
      const field = fields.get(key);
      const name = path ? `${path}.${key}` : key;
      if (!field) out.add('field', name);
      else if (field.known || field.fields || field.element) {
        walk(field, (value as Record<string, unknown>)[key], name, out);
      }
    }
  } else if (shape.element && Array.isArray(value)) {
    const element = shape.element;
    if (!(element.known || element.fields || element.element)) return;
    for (const item of value) walk(element, item, `${path}[]`, out);
  }
}
