/** The transactions job's definition; its handler is jobs/transactions.ts, imported when a run starts. */
import type { TransactionsJobConfig } from '../src/config/index.js';
import { FOREVER } from '../src/config/retention.js';
import { defineJob, withoutSchedule } from '../src/kernel/job.js';
import { JOB_NAMES } from '../src/kernel/job-names.js';
import { canonicalNetwork, type Network } from '../src/upstream/endpoints.js';

export type TransactionsPayload = Pick<
  TransactionsJobConfig,
  'networks' | 'statuses' | 'pageSize' | 'maxPages'
> & {
  /** `retention.transactions` in ms: older rows are not written (the maintenance job would prune them). */
  retention?: number | undefined;
};

/** The cursor's scope of a (network, status) stream: `mainnet/all`. */
export function transactionScope(network: Network, status: TransactionsPayload['statuses'][number]): string {
  return `${canonicalNetwork(network)}/${status}`;
}

export const transactionsJob = defineJob({
  name: JOB_NAMES.transactions,
  configKey: 'transactions',
  table: 'transactions',
  handler: async () => (await import('./transactions.js')).transactions,
  restore: async () => (await import('./transactions.js')).restore,
  payload: (section, _args, config) => ({
    ...withoutSchedule(section),
    retention: config.retention.transactions === FOREVER ? undefined : config.retention.transactions,
  }),
  streams: ({ networks, statuses, maxPages }) =>
    networks.flatMap((network) =>
      statuses.map((status) => ({
        scope: transactionScope(network, status),
        label: `${canonicalNetwork(network)}, ${status === 'all' ? 'all statuses' : status}`,
        firstRun: { transactions: maxPages },
        reads: `the latest ${maxPages} page(s) (maxPages), as a first run: the feed is not an archive, what is older is not read again`,
      })),
    ),
  cost: ({ networks, statuses, maxPages, pageSize }) => {
    const streams = networks.length * statuses.length;
    return {
      steady: { transactions: streams },
      worst: { transactions: streams * maxPages },
      note: `${streams} stream(s)`,
      // A run up to date reads one page a stream: at most that many new rows.
      rows: { steady: streams * pageSize, worst: streams * maxPages * pageSize },
    };
  },
});
