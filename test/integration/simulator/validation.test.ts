import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../../src/simulator/index.js';
import {
  api,
  closeSimulators,
  expectError,
  FUJI_ADDRESS,
  MAINNET_ADDRESS,
  NODE_ID,
  startTestSimulator,
  TX_ID,
} from './helpers.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  ({ sim } = await startTestSimulator());
});
afterAll(closeSimulators);

const rewardsOf = (query: string, network = 'mainnet') => `/v1/networks/${network}/rewards?${query}`;

/** [what, path, status, message fragment] — each answered with the error body and the right status. */
const cases: Array<[string, string, number, string]> = [
  [
    'unknown network in the rewards path',
    rewardsOf(`addresses=${MAINNET_ADDRESS}`, 'devnet'),
    400,
    'network must be one of',
  ],
  ['unknown network of transactions', '/v1/transactions?network=devnet', 400, 'network must be one of'],
  [
    'unknown network of signatures',
    `/v1/signatureAggregator/local/aggregateSignatures/${TX_ID}`,
    400,
    'network',
  ],
  ['missing network of primary usage', '/v1/primaryNetworkRpcUsageMetrics', 400, 'network must be one of'],
  ['unknown network of primary usage', '/v1/primaryNetworkRpcUsageMetrics?network=devnet', 400, 'network'],
  ['pageSize 0', '/v1/transactions?pageSize=0', 400, 'pageSize must not be less than 1'],
  ['pageSize 101', '/v1/transactions?pageSize=101', 400, 'pageSize must not be greater than 100'],
  ['pageSize not an integer', '/v1/transactions?pageSize=2.5', 400, 'pageSize must be an integer number'],
  [
    'pageSize not a number',
    rewardsOf(`addresses=${MAINNET_ADDRESS}&pageSize=ten`),
    400,
    'pageSize must be an integer',
  ],
  ['rewards with neither addresses nor nodeIds', rewardsOf(''), 400, 'At least one of addresses or nodeIds'],
  [
    'rewards with empty lists',
    rewardsOf('addresses=&nodeIds=,'),
    400,
    'At least one of addresses or nodeIds',
  ],
  ['a fuji address on mainnet', rewardsOf(`addresses=${FUJI_ADDRESS}`), 400, 'must be a avax1'],
  ['a mainnet address on fuji', rewardsOf(`addresses=${MAINNET_ADDRESS}`, 'fuji'), 400, 'must be a fuji1'],
  ['a mainnet address on testnet', rewardsOf(`addresses=P-${MAINNET_ADDRESS}`, 'testnet'), 400, 'fuji1'],
  ['an address without prefix', rewardsOf('addresses=h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg'), 400, 'avax1'],
  [
    'an EVM address as reward address',
    rewardsOf('addresses=0x71C7656EC7ab88b098defB751B7401B5f6d8976F'),
    400,
    'avax1',
  ],
  ['a malformed node id', rewardsOf('nodeIds=Node-123'), 400, 'nodeIds'],
  // A typo in an id is refused, as the real API refuses it: no invented rewards for it.
  [
    'a node id with its last character changed (cb58 checksum)',
    rewardsOf(`nodeIds=${NODE_ID.slice(0, -1)}${NODE_ID.endsWith('h') ? 'i' : 'h'}`),
    400,
    'checksum',
  ],
  ['a node id with two characters cut', rewardsOf(`nodeIds=${NODE_ID.slice(0, -2)}`), 400, 'checksum'],
  [
    'an address with its last character changed (bech32 checksum)',
    rewardsOf(`addresses=${MAINNET_ADDRESS.slice(0, -1)}${MAINNET_ADDRESS.endsWith('q') ? 'p' : 'q'}`),
    400,
    'checksum',
  ],
  [
    'a signature txHash with its last character changed (cb58 checksum)',
    `/v1/signatureAggregator/mainnet/aggregateSignatures/${TX_ID.slice(0, -1)}${TX_ID.endsWith('Q') ? 'R' : 'Q'}`,
    400,
    'checksum',
  ],
  [
    'unknown currency',
    rewardsOf(`addresses=${MAINNET_ADDRESS}&currency=btc`),
    400,
    'currency must be one of',
  ],
  ['unknown sortOrder', rewardsOf(`nodeIds=${NODE_ID}&sortOrder=newest`), 400, 'sortOrder must be one of'],
  ['unknown status', '/v1/transactions?status=pending', 400, 'status must be one of the following values'],
  ['unknown timeInterval', '/v1/apiUsageMetrics?timeInterval=yearly', 400, 'timeInterval must be one of'],
  [
    'minute on the primary network',
    '/v1/primaryNetworkRpcUsageMetrics?network=mainnet&timeInterval=minute',
    400,
    'timeInterval',
  ],
  ['minute on subnet', '/v1/subnetRpcUsageMetrics?timeInterval=minute', 400, 'timeInterval must be one of'],
  ['groupBy of another endpoint', '/v1/apiUsageMetrics?groupBy=rpcMethod', 400, 'groupBy must be one of'],
  [
    'unknown primary groupBy',
    '/v1/primaryNetworkRpcUsageMetrics?network=fuji&groupBy=chainId',
    400,
    'groupBy',
  ],
  ['unknown subnet groupBy', '/v1/subnetRpcUsageMetrics?groupBy=country', 400, 'groupBy must be one of'],
  ['unknown requestType', '/v1/apiUsageMetrics?requestType=graphql', 400, 'requestType must be one of'],
  [
    'negative startTimestamp',
    '/v1/apiUsageMetrics?startTimestamp=-1',
    400,
    'startTimestamp must not be less than 0',
  ],
  [
    'negative endTimestamp',
    '/v1/subnetRpcUsageMetrics?endTimestamp=-86400',
    400,
    'endTimestamp must not be less',
  ],
  [
    'fractional timestamp',
    '/v1/subnetRpcUsageMetrics?startTimestamp=1.5',
    400,
    'startTimestamp must be an integer',
  ],
  [
    'start after end',
    '/v1/apiUsageMetrics?startTimestamp=1748736000&endTimestamp=1748000000',
    400,
    'must not be after',
  ],
  [
    'too many buckets',
    '/v1/apiUsageMetrics?timeInterval=minute&startTimestamp=1740000000',
    400,
    'at most 2000',
  ],
  ['a txHash that is not cb58', '/v1/signatureAggregator/mainnet/aggregateSignatures/0xabc', 400, 'txHash'],
  [
    'a txHash with a non-base58 letter',
    `/v1/signatureAggregator/fuji/aggregateSignatures/${TX_ID.replace('P', '0')}`,
    400,
    'cb58',
  ],
  ['unknown operationId', '/v1/operations/2b9c1c4e-0a55-4b11-9a5e-0d1f1e3e2a10', 404, 'not found'],
  ['unknown path', '/v1/chains', 404, 'Cannot GET /v1/chains'],
  ['unknown path outside /v1', '/', 404, 'Cannot GET /'],
  ['unknown download', '/downloads/abc/def.csv', 404, 'Export file not found'],
];

describe('simulator validation', () => {
  it.each(cases)('answers %s with the error body and its status', async (_what, path, status, fragment) => {
    expectError(await api(sim, path), status, fragment);
  });

  it('answers a wrong method on a known path with 404', async () => {
    expectError(
      await api(sim, '/v1/transactions', { method: 'POST', body: '{}' }),
      404,
      'Cannot POST /v1/transactions',
    );
    expectError(await api(sim, '/v1/operations/transactions:export'), 404, 'not found');
  });

  it('lists every failed rule in an array message', async () => {
    const res = await api(sim, '/v1/transactions?network=devnet&status=x&pageSize=0');
    expectError(res, 400);
    expect(res.body.message).toEqual([
      'network must be one of the following values: mainnet, fuji, testnet',
      'status must be one of the following values: failed, success',
      'pageSize must not be less than 1',
    ]);
  });

  it('answers other errors with a string message', async () => {
    const res = await api(sim, '/v1/transactions?pageToken=nope');
    expectError(res, 400, 'Invalid pageToken');
    expect(typeof res.body.message).toBe('string');
  });

  it('accepts P- and X- prefixed addresses and answers with the bare form', async () => {
    for (const form of [`P-${MAINNET_ADDRESS}`, `X-${MAINNET_ADDRESS}`, MAINNET_ADDRESS]) {
      const res = await api(sim, rewardsOf(`addresses=${form}&pageSize=3`));
      expect(res.status).toBe(200);
      expect(res.body.historicalRewards[0].addresses).toEqual([MAINNET_ADDRESS]);
    }
    const fuji = await api(sim, rewardsOf(`addresses=X-${FUJI_ADDRESS}`, 'testnet'));
    expect(fuji.status).toBe(200);
  });

  describe('export creation', () => {
    const post = (body: string) => api(sim, '/v1/operations/transactions:export', { method: 'POST', body });
    const evmOptions = {
      addresses: ['0x71c7656ec7ab88b098defb751b7401b5f6d8976f'],
      includeChains: ['43114'],
    };

    it.each([
      ['a malformed JSON body', '{"type": "TRANSACTION_EXPORT_EVM",', 'Malformed JSON body'],
      ['a body that is not an object', '[1,2]', 'body must be a JSON object'],
      ['a missing type', JSON.stringify({ options: evmOptions }), 'type should not be empty'],
      ['an unknown type', JSON.stringify({ type: 'EXPORT_ALL', options: evmOptions }), 'type must be one of'],
      ['missing options', JSON.stringify({ type: 'TRANSACTION_EXPORT_EVM' }), 'options should not be empty'],
      [
        'EVM options without addresses',
        JSON.stringify({ type: 'TRANSACTION_EXPORT_EVM', options: { includeChains: ['43114'] } }),
        'options.addresses should not be empty',
      ],
      [
        'options without includeChains',
        JSON.stringify({ type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK', options: { addresses: [] } }),
        'options.includeChains should not be empty',
      ],
      [
        'an unknown primary-network chain',
        JSON.stringify({
          type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE',
          options: { includeChains: ['d-chain'] },
        }),
        'options.includeChains must be one of',
      ],
      [
        'a date that is not a string',
        JSON.stringify({ type: 'TRANSACTION_EXPORT_EVM', firstDate: 20250101, options: evmOptions }),
        'firstDate must be a string',
      ],
    ])('refuses %s with 400', async (_what, body, fragment) => {
      expectError(await post(body), 400, fragment);
    });

    it('lists every problem of a body at once', async () => {
      const res = await post(
        JSON.stringify({ type: 'NOPE', options: { includeChains: 'p-chain', addresses: 'x' } }),
      );
      expectError(res, 400);
      expect(res.body.message).toHaveLength(3);
    });
  });
});
