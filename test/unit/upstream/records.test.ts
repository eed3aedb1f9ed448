import { stringify } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { stakingTypeOf } from '../../../src/upstream/auto-renew.js';
import { parseJsonLossless } from '../../../src/upstream/json.js';
import {
  checkRecord,
  checkRecords,
  DriftCollector,
  findDrift,
  recheckRecord,
  recordSpecs,
} from '../../../src/upstream/records.js';
import { historicalRewardSchema } from '../../../src/upstream/schemas.js';
import * as f from './fixtures.js';

/** One reward as the API sends it (its price a LosslessNumber, as the client parses it). */
const reward = () =>
  (parseJsonLossless(f.rewardsText('1.25')) as { historicalRewards: Record<string, unknown>[] })
    .historicalRewards[0]!;

const tx = (fields: Record<string, unknown> = {}) => ({ ...structuredClone(f.transaction), ...fields });

describe('a record is checked on its own: its schema, then its domain bounds', () => {
  it.each([
    [
      'transactions',
      'blockTimestamp',
      -1e15,
      'bounds',
      /blockTimestamp: out of bounds: expected Unix seconds from 2009-01-01/,
    ],
    ['transactions', 'blockTimestamp', 99_999_999_999, 'bounds', /before 2100-01-01/],
    [
      'transactions',
      'blockTimestamp',
      1_700_000_000.5,
      'schema',
      /blockTimestamp: expected whole Unix seconds/,
    ],
    ['transactions', 'blockTimestampMilliseconds', 1_700_000_000, 'bounds', /Unix milliseconds from 2009/],
    ['transactions', 'blockIndex', -1, 'bounds', /blockIndex: out of bounds: expected a non-negative number/],
    ['transactions', 'blockIndex', 2 ** 60, 'schema', /blockIndex/],
    ['transactions', 'value', '9'.repeat(79), 'bounds', /value: out of bounds: expected at most 78 digits/],
    ['transactions', 'value', '12.5', 'schema', /value: expected an unsigned integer string/],
    ['transactions', 'txType', 2 ** 31, 'bounds', /txType: out of bounds/],
    ['transactions', 'chainId', '43114\u001b[2J', 'schema', /chainId: expected an EVM chain id/],
  ] as const)('%s.%s = %j is %s', (endpoint, field, value, reason, problem) => {
    const checked = checkRecord(recordSpecs[endpoint], tx({ [field]: value }));
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.rejected.reason).toBe(reason);
    expect(checked.rejected.fields).toEqual([field]);
    expect(checked.rejected.problems).toMatch(problem);
  });

  it.each([
    ['denomination -3', { denomination: -3 }, 'bounds', 'reward.denomination'],
    ['denomination 1.5', { denomination: 1.5 }, 'schema', 'reward.denomination'],
    ['denomination 1e300', { denomination: 1e300 }, 'schema', 'reward.denomination'],
    ['an amount 12.5', { amount: '12.5' }, 'schema', 'reward.amount'],
    ['an amount of 79 digits', { amount: '1'.repeat(79) }, 'bounds', 'reward.amount'],
  ])('a reward with %s is set aside, naming the field', (_name, change, reason, field) => {
    const raw = reward();
    raw['reward'] = { ...(raw['reward'] as object), ...change };
    const checked = checkRecord(recordSpecs.rewards, raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.rejected).toMatchObject({ reason, fields: [field] });
  });

  it('names a reward set aside by its UTXO when its utxoId is valid, else not at all', () => {
    const bad = { ...reward(), endTimestamp: 1e14 };
    const checked = checkRecord(recordSpecs.rewards, bad);
    expect(!checked.ok && checked.rejected.key).toBe('2oGzJw9cFV3QYKkdxmBCaK9DLbzuCSxWSzwZkbGrUb7i1QBKWQ');
    const keyless = checkRecord(recordSpecs.rewards, { ...reward(), utxoId: 'not an id' });
    expect(!keyless.ok && keyless.rejected.key).toBeUndefined();
  });

  it('accepts a contract creation: `to` absent or null', () => {
    const { to: _to, ...created } = tx();
    expect(checkRecord(recordSpecs.transactions, created).ok).toBe(true);
    const nulled = checkRecord(recordSpecs.transactions, tx({ to: null }));
    expect(nulled.ok && nulled.value.to).toBeNull();
  });

  it('refuses text with a NUL (PostgreSQL refuses it) and open enum values that are no word', () => {
    const named = checkRecord(recordSpecs.transactions, tx({ from: { address: '0x1', name: 'a\u0000b' } }));
    expect(!named.ok && named.rejected.fields).toEqual(['from.name']);
    const call = checkRecord(
      recordSpecs.transactions,
      tx({ method: { callType: 'NATIVE TRANSFER\u001b', methodHash: '0x' } }),
    );
    expect(!call.ok && call.rejected.fields).toEqual(['method.callType']);
  });

  it('keeps the good records of a list and sets the others aside, in order', () => {
    const list = [tx(), tx({ blockTimestamp: -1 }), tx({ txHash: `0x${'cd'.repeat(32)}` })];
    const { items, rejected } = checkRecords(recordSpecs.transactions, list, new DriftCollector());
    expect(items.map((t) => t.txHash)).toEqual([f.transaction.txHash, `0x${'cd'.repeat(32)}`]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.key).toBe(`43114:${f.transaction.txHash}`);
    expect(rejected[0]!.raw).toEqual(list[1]);
  });

  it('checks a usage value with its bucket start', () => {
    const spec = recordSpecs.apiUsageMetrics;
    const value = { ...f.usageValue, groupedBy: 'requestPath', groupValue: '/v1/x' };
    expect(checkRecord(spec, { timestamp: 1_700_000_000, value }).ok).toBe(true);
    const late = checkRecord(spec, { timestamp: 1e14, value });
    expect(!late.ok && late.rejected).toMatchObject({
      reason: 'bounds',
      fields: ['timestamp'],
      key: '100000000000000/requestPath//v1/x',
    });
    const long = checkRecord(spec, {
      timestamp: 1_700_000_000,
      value: { ...value, groupValue: 'a'.repeat(513) },
    });
    expect(!long.ok && long.rejected.fields).toEqual(['value.groupValue']);
  });

  it('checks a stored record again from its text, a price without a float', () => {
    const raw = (
      parseJsonLossless(f.rewardsText('0.123456789012345678901')) as { historicalRewards: unknown[] }
    ).historicalRewards[0];
    const again = recheckRecord('rewards', stringify(raw)!);
    expect(again.ok && again.value.reward.historicalPrice?.value).toBe('0.123456789012345678901');
    const broken = recheckRecord('transactions', '{"cut');
    expect(!broken.ok && broken.rejected.problems).toBe('(record): not JSON');
  });
});

describe('drift: fields and enum values the OpenAPI does not list', () => {
  it('names unknown fields by path and unknown open-enum values, each counted once a record', () => {
    const drift = new DriftCollector();
    const rewards: Record<string, unknown>[] = [0, 1, 2].map(() => ({ ...reward(), futureField: 'x' }));
    rewards[0]!['rewardType'] = 'NEW_REWARD';
    (rewards[1]!['reward'] as Record<string, unknown>)['newAssetField'] = 1;
    checkRecords(recordSpecs.rewards, rewards, drift);
    expect(drift.result()).toEqual([
      { kind: 'enumValue', name: 'historicalRewards[].rewardType=NEW_REWARD', count: 1 },
      { kind: 'field', name: 'historicalRewards[].futureField', count: 3 },
      { kind: 'field', name: 'historicalRewards[].reward.newAssetField', count: 1 },
    ]);
  });

  it('knows the stakingType of ACP-236 (fixed when absent); an unknown value of it is drift, not a failure', () => {
    const drift = new DriftCollector();
    const rewards: Record<string, unknown>[] = [
      { ...reward(), stakingType: 'fixed' },
      { ...reward(), stakingType: 'autoRenewed' },
      { ...reward(), stakingType: 'rolling' },
      reward(),
    ];
    const checked = checkRecords(recordSpecs.rewards, rewards, drift);
    expect(checked.rejected).toEqual([]);
    expect(checked.items.map((r) => stakingTypeOf(r))).toEqual(['fixed', 'autoRenewed', 'rolling', 'fixed']);
    expect(drift.result()).toEqual([
      { kind: 'enumValue', name: 'historicalRewards[].stakingType=rolling', count: 1 },
    ]);
  });

  it('sees nothing in an answer the OpenAPI describes, known enum values included', () => {
    const drift = new DriftCollector();
    drift.nextRecord();
    findDrift(historicalRewardSchema, reward(), '', drift);
    expect(drift.result()).toEqual([]);
  });

  it('bounds and shows a hostile name: control characters visible, at most 96 characters', () => {
    const drift = new DriftCollector();
    drift.nextRecord();
    findDrift(historicalRewardSchema, { ...reward(), [`\u001b[2J${'k'.repeat(500)}`]: 1 }, '', drift);
    const [name] = drift.result();
    expect(name!.name.startsWith('\\x1b[2Jkkk')).toBe(true);
    expect(name!.name.length).toBeLessThanOrEqual(97);
  });

  it('does not take __proto__ or constructor for known fields', () => {
    const drift = new DriftCollector();
    drift.nextRecord();
    findDrift(historicalRewardSchema, JSON.parse('{"__proto__": 1, "constructor": 2}'), '', drift);
    expect(drift.result().map((d) => d.name)).toEqual(['__proto__', 'constructor']);
  });
});
