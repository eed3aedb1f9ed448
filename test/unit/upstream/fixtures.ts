/** Upstream bodies shaped like spec/data-api.openapi.json (examples from it), shared by unit and integration tests. */

export const supply = {
  circulatingSupply: '454257251.7149865026656081965',
  totalSupply: '459357251.7149865026656081965',
  totalPBurned: '1234.5',
  totalCBurned: '4567890.123456789',
  totalXBurned: '12.000000001',
  totalStaked: '219876543.21',
  totalLocked: '5100000',
  totalRewards: '12345678.9',
  lastUpdated: '2025-06-01T12:34:56.789Z',
  genesisUnlock: '360000000',
  l1ValidatorFees: '42.5',
};

export const transaction = {
  blockNumber: '339',
  blockTimestamp: 1648672486,
  blockTimestampMilliseconds: 1648672486000,
  blockMinDelayExcess: 7477290,
  blockHash: '0x17533aeb5193378b9ff441d61728e7a2ebaf10f61fd5310759451627dfca2e7c',
  chainId: '43114',
  blockIndex: 0,
  txHash: '0x3e9303f81be00b4af28515dab7b914bf3dbff209ea10e7071fa24d4af0a112d4',
  txStatus: '1',
  txType: 1,
  gasLimit: '51373',
  gasUsed: '51373',
  gasPrice: '470000000000',
  nonce: '1',
  from: { address: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F' },
  to: {
    name: 'Wrapped AVAX',
    symbol: 'WAVAX',
    decimals: 18,
    logoUri: 'https://example.com/wavax.svg',
    address: '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7',
  },
  method: { callType: 'CONTRACT_CALL', methodHash: '0xa9059cbb', methodName: 'transfer(address,uint256)' },
  value: '10000000000000000000',
};

/** Rewards body as text: the price must reach the schema without passing through a float. */
export function rewardsText(price: string, nextPageToken?: string): string {
  const token = nextPageToken === undefined ? '' : `"nextPageToken":"${nextPageToken}",`;
  return `{${token}"historicalRewards":[{
    "addresses":["avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg"],
    "txHash":"2a8m7yA4ZgEkMrHwvHkjzTGUQJ63o8J6VtXY6e2WyJcZNBbBKN",
    "amountStaked":"2000000000000",
    "nodeId":"NodeID-JnZ4J6X7nmaA1rDFwcSrRA7nfBwv5jsXp",
    "startTimestamp":1700000000,
    "endTimestamp":1701209600,
    "rewardType":"VALIDATOR",
    "utxoId":"2oGzJw9cFV3QYKkdxmBCaK9DLbzuCSxWSzwZkbGrUb7i1QBKWQ",
    "outputIndex":1,
    "reward":{"assetId":"FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z","name":"Avalanche","symbol":"AVAX",
      "denomination":9,"type":"secp256k1","amount":"5001000",
      "historicalPrice":{"currencyCode":"usd","value":${price}}},
    "rewardTxHash":"2a8m7yA4ZgEkMrHwvHkjzTGUQJ63o8J6VtXY6e2WyJcZNBbBKN"
  }]}`;
}

export const usageValue = {
  totalRequests: 100,
  apiCreditsUsed: 2000,
  requestsPerSecond: 0.5,
  successRatePercent: 99.5,
  medianResponseTimeMsecs: 120,
  invalidRequests: 1,
  apiCreditsWasted: 20,
};

export const apiUsageMetrics = {
  aggregateDuration: '1 day',
  orgId: 'org-1',
  metrics: [{ timestamp: 1700000000, values: [{ ...usageValue, groupedBy: 'None' }] }],
};

export const primaryNetworkRpcUsageMetrics = {
  aggregateDuration: '1 day',
  network: 'mainnet',
  metrics: [
    {
      timestamp: 1700000000,
      values: [{ ...usageValue, groupedBy: 'rpcMethod', groupValue: 'platform.getHeight' }],
    },
  ],
};

export const subnetRpcUsageMetrics = {
  aggregateDuration: '1 hour',
  chainId: '43114',
  metrics: [
    { timestamp: 1700000000, values: [{ ...usageValue, groupedBy: 'responseCode', groupValue: 200 }] },
  ],
};

export const operation = {
  operationId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  operationType: 'TRANSACTION_EXPORT_EVM',
  operationStatus: 'RUNNING',
  createdAtTimestamp: 1700000000000,
  updatedAtTimestamp: 1700000000000,
};

export const completedOperation = {
  ...operation,
  operationStatus: 'COMPLETED',
  message: 'done',
  metadata: { downloadUrl: 'https://downloads.example.com/export.csv' },
};

export const signature = { signedMessage: '0000000000059f3be606497285d0ffbb' };
