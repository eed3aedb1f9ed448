/**
 * The Data API endpoints (the nine the project started from, and the four staking ones), named once for the client (its paths and the status a success answers),
 * the simulator (its routes), the planner and metrics; and the meter adding up what they cost.
 * Compute-unit costs and tiers: ../shared/reference/README.md ("Rate limits: compute units").
 */
export const endpoints = {
  supply: { method: 'GET', path: '/v1/avax/supply', computeUnits: 1, successStatus: 200 },
  transactions: { method: 'GET', path: '/v1/transactions', computeUnits: 20, successStatus: 200 },
  rewards: { method: 'GET', path: '/v1/networks/{network}/rewards', computeUnits: 100, successStatus: 200 },
  apiUsageMetrics: { method: 'GET', path: '/v1/apiUsageMetrics', computeUnits: 200, successStatus: 200 },
  primaryNetworkRpcUsageMetrics: {
    method: 'GET',
    path: '/v1/primaryNetworkRpcUsageMetrics',
    computeUnits: 200,
    successStatus: 200,
  },
  subnetRpcUsageMetrics: {
    method: 'GET',
    path: '/v1/subnetRpcUsageMetrics',
    computeUnits: 200,
    successStatus: 200,
  },
  signatures: {
    method: 'GET',
    path: '/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}',
    computeUnits: 20,
    successStatus: 201,
  },
  createExport: {
    method: 'POST',
    path: '/v1/operations/transactions:export',
    computeUnits: 20,
    successStatus: 201,
  },
  getOperation: { method: 'GET', path: '/v1/operations/{operationId}', computeUnits: 10, successStatus: 200 },
  // Staking (../shared/reference/data-api-staking.openapi.json; costs from its README, "Learned since").
  validatorDetails: {
    method: 'GET',
    path: '/v1/networks/{network}/validators/{nodeId}',
    computeUnits: 20,
    successStatus: 200,
  },
  validators: {
    method: 'GET',
    path: '/v1/networks/{network}/validators',
    computeUnits: 20,
    successStatus: 200,
  },
  delegators: {
    method: 'GET',
    path: '/v1/networks/{network}/delegators',
    computeUnits: 20,
    successStatus: 200,
  },
  pendingRewards: {
    method: 'GET',
    path: '/v1/networks/{network}/rewards:listPending',
    computeUnits: 100,
    successStatus: 200,
  },
  // ACP-236 (unreleased SDK 0.3.14, src/upstream/auto-renew.ts). Its cost is unpublished: counted as
  // its sibling validators/{nodeId} (Medium, 20 CU) until the rate-limits page lists it.
  validatorCycles: {
    method: 'GET',
    path: '/v1/networks/{network}/validators/{nodeId}/cycles',
    computeUnits: 20,
    successStatus: 200,
  },
} as const;

export type EndpointName = keyof typeof endpoints;

/** An endpoint's path with its `{parameters}` filled in, each encoded as one path segment. */
export function pathOf(endpoint: EndpointName, params: Readonly<Record<string, string>> = {}): string {
  return endpoints[endpoint].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${endpoint}: path parameter "${name}" missing`);
    return encodeURIComponent(value);
  });
}
export const endpointNames = Object.keys(endpoints) as EndpointName[];

/** Rate-limit tiers: compute units per minute and per day. "none" is the budget without an API key. */
export const tiers = {
  none: { perMinute: 6_000, perDay: 1_200_000 },
  Free: { perMinute: 8_000, perDay: 2_000_000 },
  Base: { perMinute: 10_000, perDay: 3_750_000 },
  Growth: { perMinute: 14_000, perDay: 11_200_000 },
  Pro: { perMinute: 20_000, perDay: 25_000_000 },
} as const;

export type TierName = keyof typeof tiers;
export const tierNames = Object.keys(tiers) as TierName[];

export const networks = ['mainnet', 'fuji', 'testnet'] as const;
export type Network = (typeof networks)[number];

export const currencies = [
  'usd',
  'eur',
  'aud',
  'cad',
  'chf',
  'clp',
  'cny',
  'czk',
  'dkk',
  'gbp',
  'hkd',
  'huf',
  'jpy',
  'nzd',
] as const;
export type Currency = (typeof currencies)[number];

/** Human-readable address prefix of a network: `avax` on mainnet, `fuji` on the test network. */
export function addressHrp(network: Network): 'avax' | 'fuji' {
  return network === 'mainnet' ? 'avax' : 'fuji';
}

/** Addresses as the API returns them, without a `P-`/`X-` chain prefix. */
export function bareAddress(address: string): string {
  return address.replace(/^[PX]-/, '');
}

/** `testnet` and `fuji` name the same network; the collector stores and keys it as `fuji`. */
export function canonicalNetwork(network: string): string {
  return network === 'testnet' ? 'fuji' : network;
}

/** PrimaryNetworkOptions.includeChains: the P, X and C blockchain ids (mainnet and fuji) or their names. */
export const primaryNetworkChains = [
  '11111111111111111111111111111111LpoYY',
  '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM',
  '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm',
  '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
  'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
  'p-chain',
  'x-chain',
  'c-chain',
] as const;
