import { createHash } from 'node:crypto';
import { bech32Encode, toWords } from '../config/identifiers.js';
import { cb58Encode } from '../upstream/identifiers.js';

/** Valid-looking identifiers made from a label, for the demo and the tests. */
export function demoAddress(label: string, hrp: 'avax' | 'fuji' = 'avax'): string {
  const bytes = createHash('sha256').update(label).digest().subarray(0, 20);
  return bech32Encode(hrp, toWords(bytes));
}

/** A P-/X-Chain transaction id (the cb58 of 32 bytes, with its checksum) made from a label. */
export function demoCb58(label: string): string {
  return cb58Encode(createHash('sha256').update(label).digest());
}

/** A node id ("NodeID-" and the cb58 of 20 bytes, with its checksum) made from a label. */
export function demoNodeId(label: string): string {
  return `NodeID-${cb58Encode(createHash('sha256').update(label).digest().subarray(0, 20))}`;
}

export function demoEvmAddress(label: string): string {
  return `0x${createHash('sha256').update(label).digest('hex').slice(0, 40)}`;
}

/** The config file `npm run demo` uses: every job, small and fast. */
export function demoFileConfig() {
  return {
    jobs: {
      supply: { schedule: '*/5 * * * *' },
      transactions: {
        schedule: '* * * * *',
        networks: ['mainnet', 'fuji'],
        statuses: ['all'],
        pageSize: 100,
        maxPages: 3,
      },
      rewards: {
        schedule: '0 * * * *',
        network: 'mainnet',
        addresses: [demoAddress('validator-1'), demoAddress('delegator-1'), demoAddress('delegator-2')],
        nodeIds: [demoNodeId('node-1')],
        currency: 'usd',
      },
      // The rewards job's node id and addresses: what an operator gets by adding the section.
      validators: { schedule: '*/15 * * * *' },
      usageMetrics: {
        schedule: '0 * * * *',
        sources: [
          { source: 'dataApi', timeInterval: 'hourly', groupBy: 'requestPath', lookback: '2d' },
          { source: 'primaryNetworkRpc', network: 'mainnet', timeInterval: 'daily', lookback: '7d' },
          {
            source: 'subnetRpc',
            chainIds: ['432204'],
            timeInterval: 'daily',
            groupBy: 'rpcMethod',
            lookback: '7d',
          },
        ],
      },
      signatures: {
        schedule: '*/10 * * * *',
        network: 'mainnet',
        txHashes: [demoCb58('tx-1'), demoCb58('tx-2')],
      },
      exports: {
        schedule: '0 2 * * *',
        directory: './data/demo-exports',
        pollInterval: '1s',
        maxWait: '2m',
        definitions: [
          {
            name: 'c-chain-daily',
            type: 'TRANSACTION_EXPORT_EVM',
            addresses: [demoEvmAddress('treasury')],
            includeChains: ['43114'],
            window: 'previous-day',
          },
        ],
      },
    },
  };
}

/** The demo config for the whole service: the same jobs on schedules of seconds, each run at start. */
export function demoServiceConfig() {
  const base = demoFileConfig();
  const every = (schedule: string) => ({ schedule, runOnStart: true });
  const j = base.jobs;
  return {
    ...base,
    jobs: {
      supply: { ...j.supply, ...every('*/5 * * * * *') },
      transactions: { ...j.transactions, ...every('*/10 * * * * *') },
      rewards: { ...j.rewards, ...every('*/30 * * * * *') },
      validators: { ...j.validators, ...every('*/30 * * * * *') },
      usageMetrics: { ...j.usageMetrics, ...every('*/30 * * * * *') },
      signatures: { ...j.signatures, ...every('*/30 * * * * *') },
      exports: { ...j.exports, ...every('0 * * * * *') },
    },
    service: { queuePrefix: 'glacier-demo', shutdownGrace: '10s' },
  };
}
