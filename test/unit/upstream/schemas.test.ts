import { describe, expect, it } from 'vitest';
import { parseJsonLossless, toPlainDecimal } from '../../../src/upstream/json.js';
import { schemas } from '../../../src/upstream/schemas.js';
import * as f from './fixtures.js';

const rewardOf = (price: string) => {
  const parsed = schemas.listHistoricalRewardsResponse.parse(parseJsonLossless(f.rewardsText(price)));
  return parsed.historicalRewards[0]!;
};

/** One reward as the API sends it (price as text), to break a field of. */
const reward = (JSON.parse(f.rewardsText('1')) as { historicalRewards: Record<string, unknown>[] })
  .historicalRewards[0]!;

describe('response schemas', () => {
  it.each([
    ['supply', schemas.supply, f.supply],
    ['transaction', schemas.transaction, f.transaction],
    ['apiUsageMetrics', schemas.apiUsageMetrics, f.apiUsageMetrics],
    ['primaryNetworkRpcUsageMetrics', schemas.primaryNetworkRpcUsageMetrics, f.primaryNetworkRpcUsageMetrics],
    ['subnetRpcUsageMetrics', schemas.subnetRpcUsageMetrics, f.subnetRpcUsageMetrics],
    ['operation', schemas.operation, f.completedOperation],
    ['signatureResponse', schemas.signatureResponse, f.signature],
  ] as const)('%s accepts unknown fields and keeps them', (_name, schema, value) => {
    const parsed = schema.parse({ ...value, addedUpstreamLater: { nested: true } }) as Record<
      string,
      unknown
    >;
    expect(parsed.addedUpstreamLater).toEqual({ nested: true });
  });

  it.each([
    ['supply', schemas.supply, f.supply, 'totalSupply'],
    ['transaction', schemas.transaction, f.transaction, 'txHash'],
    ['apiUsageMetrics', schemas.apiUsageMetrics, f.apiUsageMetrics, 'orgId'],
    [
      'primaryNetworkRpcUsageMetrics',
      schemas.primaryNetworkRpcUsageMetrics,
      f.primaryNetworkRpcUsageMetrics,
      'network',
    ],
    ['subnetRpcUsageMetrics', schemas.subnetRpcUsageMetrics, f.subnetRpcUsageMetrics, 'chainId'],
    ['operation', schemas.operation, f.operation, 'operationStatus'],
    ['signatureResponse', schemas.signatureResponse, f.signature, 'signedMessage'],
  ] as const)('%s rejects a body missing the required field %s', (_name, schema, value, field) => {
    const { [field]: _dropped, ...rest } = value as Record<string, unknown>;
    const result = schema.safeParse(rest);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([field]);
  });

  it('keeps optional fields optional (method, party details, blockTimestampMilliseconds)', () => {
    const { method: _m, blockTimestampMilliseconds: _b, blockMinDelayExcess: _e, ...rest } = f.transaction;
    const parsed = schemas.transaction.parse({ ...rest, to: { address: '0x0' } });
    expect(parsed.method).toBeUndefined();
  });

  it('keeps numeric strings as strings', () => {
    const parsed = schemas.transaction.parse(f.transaction);
    expect(parsed.value).toBe('10000000000000000000');
    expect(parsed.gasPrice).toBe('470000000000');
    expect(schemas.supply.parse(f.supply).circulatingSupply).toBe('454257251.7149865026656081965');
  });

  it.each([
    ['a wei amount with a fraction', schemas.transaction, { ...f.transaction, value: '1.5' }],
    ['a hex wei amount', schemas.transaction, { ...f.transaction, value: '0x10' }],
    ['a supply amount as a number', schemas.supply, { ...f.supply, totalSupply: 459357251.7 }],
    ['a supply amount in exponent form', schemas.supply, { ...f.supply, totalSupply: '4.5e8' }],
    ['a negative supply amount', schemas.supply, { ...f.supply, totalSupply: '-1' }],
    ['a date that is no date', schemas.supply, { ...f.supply, lastUpdated: 'yesterday' }],
    ['an unknown operation status', schemas.operation, { ...f.operation, operationStatus: 'PAUSED' }],
    ['a chain id that is not digits', schemas.transaction, { ...f.transaction, chainId: '43114\u001b[2J' }],
    ['a 1.5 MB chain id', schemas.transaction, { ...f.transaction, chainId: '4'.repeat(1_500_000) }],
    ['a transaction hash that is no hash', schemas.transaction, { ...f.transaction, txHash: '0xzz' }],
    ['a tx status other than 0 or 1', schemas.transaction, { ...f.transaction, txStatus: 'ok' }],
    ['an address that is no hex', schemas.transaction, { ...f.transaction, from: { address: 'Robert' } }],
    ['a node id without its prefix', schemas.historicalReward, { ...reward, nodeId: 'node-1' }],
    ['a reward type with a formula', schemas.historicalReward, { ...reward, rewardType: '=HYPERLINK(1)' }],
    ['a utxo id that is not cb58', schemas.historicalReward, { ...reward, utxoId: '0OIl' }],
    ['an operation id with a path in it', schemas.operation, { ...f.operation, operationId: '../../etc' }],
    [
      'a download URL with a line break',
      schemas.operation,
      { ...f.operation, metadata: { downloadUrl: 'http://a/\nb' } },
    ],
    ['a next date that is no date', schemas.operation, { ...f.operation, metadata: { nextDate: 'soon' } }],
  ] as const)('rejects %s', (_name, schema, value) => {
    expect(schema.safeParse(value).success).toBe(false);
  });

  it('accepts new values of open response enums (rewardType, callType, groupedBy)', () => {
    const tx = schemas.transaction.parse({
      ...f.transaction,
      method: { callType: 'NEW_KIND', methodHash: '0x' },
    });
    expect(tx.method?.callType).toBe('NEW_KIND');
    const usage = schemas.apiUsageMetrics.parse({
      ...f.apiUsageMetrics,
      metrics: [
        { timestamp: 1_700_000_000, values: [{ ...f.usageValue, groupedBy: 'region', groupValue: 'eu' }] },
      ],
    });
    expect(usage.metrics[0]?.values[0]?.groupedBy).toBe('region');
    const text = f.rewardsText('1').replace('"VALIDATOR"', '"NEW_REWARD"');
    const rewards = schemas.listHistoricalRewardsResponse.parse(parseJsonLossless(text));
    expect(rewards.historicalRewards[0]?.rewardType).toBe('NEW_REWARD');
  });

  it('accepts groupValue as a string or a number, and groupedBy None', () => {
    const parsed = schemas.subnetRpcUsageMetrics.parse(f.subnetRpcUsageMetrics);
    expect(parsed.metrics[0]?.values[0]?.groupValue).toBe(200);
    expect(schemas.apiUsageMetrics.parse(f.apiUsageMetrics).metrics[0]?.values[0]?.groupedBy).toBe('None');
  });

  it('accepts an error body whose message is a string or an array of strings', () => {
    expect(schemas.errorBody.parse({ message: 'nope', statusCode: 404, error: 'Not Found' }).message).toBe(
      'nope',
    );
    expect(
      schemas.errorBody.parse({ message: ['a', 'b'], statusCode: 400, error: 'Bad Request' }).message,
    ).toEqual(['a', 'b']);
  });

  it('validates export requests of both kinds', () => {
    expect(
      schemas.createExportRequest.safeParse({
        type: 'TRANSACTION_EXPORT_EVM',
        firstDate: '2025-01-01',
        lastDate: '2025-01-31',
        options: { addresses: ['0xabc'], includeChains: ['43114'] },
      }).success,
    ).toBe(true);
    expect(
      schemas.createExportRequest.safeParse({
        type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK',
        options: { addresses: ['avax1xyz'], includeChains: ['p-chain', 'x-chain'] },
      }).success,
    ).toBe(true);
    expect(
      schemas.createExportRequest.safeParse({
        type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK',
        options: { includeChains: ['d-chain'] },
      }).success,
    ).toBe(false);
  });
});

describe('rewards price, parsed losslessly', () => {
  it.each([
    ['0.1000000000000000055511151231257827', '0.1000000000000000055511151231257827'],
    ['42.42', '42.42'],
    ['42', '42'],
    ['42.420', '42.420'],
    ['12345678901234567890.123456789012345678901', '12345678901234567890.123456789012345678901'],
    ['4.242e1', '42.42'],
    ['1E-3', '0.001'],
    ['"42.42"', '42.42'],
  ])('%s → "%s"', (source, expected) => {
    expect(rewardOf(source).reward.historicalPrice?.value).toBe(expected);
  });

  it('turns the integer fields into numbers', () => {
    const reward = rewardOf('1.5');
    expect(reward.startTimestamp).toBe(1700000000);
    expect(reward.outputIndex).toBe(1);
    expect(reward.reward.denomination).toBe(9);
    expect(reward.reward.amount).toBe('5001000');
  });

  it('rejects a price that went through a float (JSON.parse), rather than store rounded digits', () => {
    const result = schemas.listHistoricalRewardsResponse.safeParse(JSON.parse(f.rewardsText('0.1')));
    expect(result.success).toBe(false);
  });

  it.each(['-1', '"abc"', '1e999'])('rejects the price %s', (source) => {
    const result = schemas.listHistoricalRewardsResponse.safeParse(parseJsonLossless(f.rewardsText(source)));
    expect(result.success).toBe(false);
  });

  it('accepts a reward without historicalPrice (rewards younger than 24 h)', () => {
    const body = parseJsonLossless(f.rewardsText('1')) as {
      historicalRewards: { reward: Record<string, unknown> }[];
    };
    delete body.historicalRewards[0]?.reward.historicalPrice;
    expect(
      schemas.listHistoricalRewardsResponse.parse(body).historicalRewards[0]?.reward.historicalPrice,
    ).toBeUndefined();
  });
});

describe('toPlainDecimal', () => {
  it.each([
    ['0', '0'],
    ['1e0', '1'],
    ['1.25e2', '125'],
    ['1.25e1', '12.5'],
    ['125e-2', '1.25'],
    ['125e-5', '0.00125'],
    ['-2.5E+3', '-2500'],
    ['0.5e-1', '0.05'],
    ['007', '007'],
  ])('%s → %s', (input, expected) => {
    expect(toPlainDecimal(input)).toBe(expected);
  });

  it.each(['', 'abc', '1e401', '.5', '1.'])('refuses %j', (input) => {
    expect(toPlainDecimal(input)).toBeUndefined();
  });
});
