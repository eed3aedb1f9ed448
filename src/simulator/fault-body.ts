/**
 * Body mutations of the fault injector: cut JSON, a broken envelope, one bad record, drift (what a
 * newer API would send), unknown extra fields.
 */
import type { FaultEndpoint } from './faults.js';

/** The first half of a JSON text: never parseable, since a JSON value cannot end halfway. */
export function truncateJson(text: string): string {
  return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
}

function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'number') return 'not-a-number';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return { unexpected: 'object instead of array' };
  if (value === null) return 0;
  return 'string instead of object';
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Valid JSON whose envelope has the wrong shape, an answer no client can use: the body's list (its
 * first array field) becomes an object, or, without a list, its first field gets another type.
 */
export function malformBody(body: unknown): unknown {
  if (!isObject(body)) return wrongType(body);
  const keys = Object.keys(body);
  const target = keys.find((k) => Array.isArray(body[k])) ?? keys[0];
  if (target === undefined) return { unexpected: true };
  return { ...body, [target]: wrongType(body[target]) };
}

/** The body's records: its first list (a usage answer's: the values of its buckets). */
function recordsOf(body: unknown): Json[] {
  if (!isObject(body)) return [];
  const list = Object.values(body).find(Array.isArray) as unknown[] | undefined;
  if (!list) return [body];
  const items = list.filter(isObject);
  const nested = items.flatMap((item) =>
    Array.isArray(item['values']) ? item['values'].filter(isObject) : [],
  );
  return nested.length > 0 ? nested : items;
}

/** A deep copy, so a mutation never reaches what the simulator keeps (its served log). */
const copy = <T>(body: T): T => structuredClone(body);

/**
 * One record that fails its schema or a domain bound, the rest of the answer intact: the middle
 * record of the list gets a value out of bounds (a block time in 5138, a denomination of -3), a
 * word where a number goes (a usage value), or no hex (a signature).
 */
export function spoilOneRecord(body: unknown, endpoint: FaultEndpoint): unknown {
  const out = copy(body);
  const records = recordsOf(out);
  const record = records[Math.floor(records.length / 2)];
  if (!record) return out;
  switch (endpoint) {
    case 'transactions':
      record['blockTimestamp'] = 99_999_999_999;
      break;
    case 'rewards':
      if (isObject(record['reward'])) record['reward']['denomination'] = -3;
      break;
    case 'apiUsageMetrics':
    case 'primaryNetworkRpcUsageMetrics':
    case 'subnetRpcUsageMetrics':
      record['totalRequests'] = 'many';
      break;
    case 'signatures':
      record['signedMessage'] = 'not hex';
      break;
    case 'validatorDetails':
    case 'validators': {
      // A percentage outside 0..100 on the first active one; without one, the middle's stake negative.
      const active = records.find((r) => 'uptimePerformance' in r);
      if (active) active['uptimePerformance'] = 150;
      else record['amountStaked'] = '-5';
      break;
    }
    case 'pendingRewards':
      record['endTimestamp'] = 99_999_999_999;
      break;
    case 'validatorCycles':
      // Amounts that do not add up: gross ≠ withdrawn + compounded.
      record['compoundedValidationReward'] = String(
        BigInt(String(record['compoundedValidationReward'])) + 1n,
      );
      break;
    default: {
      const first = Object.keys(record)[0];
      if (first !== undefined) record[first] = wrongType(record[first]);
    }
  }
  return out;
}

/**
 * What a newer API would send: a field the OpenAPI does not list on every record, an enum value it does not list on the first
 * record, and in a transactions page a contract creation without `to` and another with `to: null`.
 */
export function driftBody(body: unknown, endpoint: FaultEndpoint): unknown {
  const out = copy(body);
  const records = recordsOf(out);
  for (const record of records) {
    if (endpoint === 'pendingRewards') record['stakingType'] = 'fixed';
    else if (endpoint === 'validators' || endpoint === 'validatorDetails') {
      record['stakingType'] = 'fixed';
      record['simDriftField'] = 'a field the OpenAPI does not list (drift fault)';
    } else record['simDriftField'] = 'a field the OpenAPI does not list (drift fault)';
  }
  const [first, second, third] = records;
  if (first) {
    if (endpoint === 'transactions' && isObject(first['method']))
      first['method']['callType'] = 'SIM_NEW_CALL_TYPE';
    if (endpoint === 'rewards' || endpoint === 'pendingRewards') first['rewardType'] = 'SIM_NEW_REWARD_TYPE';
    if (endpoint === 'validators' || endpoint === 'validatorDetails')
      first['stakingType'] = 'simNewStakingType';
    if (typeof first['groupedBy'] === 'string') first['groupedBy'] = 'simNewGrouping';
    if (endpoint === 'validatorCycles') first['outcome'] = 'simNewOutcome';
  }
  if (endpoint === 'transactions') {
    if (second) delete second['to'];
    if (third) third['to'] = null;
  }
  return out;
}

/** Unknown fields added to every object at every level: the real schema grows, clients must ignore them. */
export function addExtraFields(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(addExtraFields);
  if (body === null || typeof body !== 'object') return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) out[key] = addExtraFields(value);
  out['simFutureField'] = 'added by the simulator (extraFields fault)';
  out['simFutureObject'] = { version: 2, tags: ['future'] };
  return out;
}
