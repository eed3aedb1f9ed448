import { readTransactionSummaries, type Store, type TransactionSummary } from '../../store/index.js';
import { mergeSameLabels, OTHER } from '../cap.js';
import type { Scrape } from '../scrape.js';

/** Transactions stored per network and chain, from transaction_summaries. */
export function defineTransactionsCollector(scrape: Scrape, store: Store): void {
  scrape.define({
    name: 'transactions',
    families: {
      collected: {
        name: 'glacier_transactions_collected',
        help: 'Transactions stored, per network and chain (chain id).',
        labelNames: ['network', 'chain'],
      },
      newest: {
        name: 'glacier_transactions_newest_block_timestamp_seconds',
        help: 'Block time of the newest transaction stored, per network and chain, Unix seconds.',
        labelNames: ['network', 'chain'],
      },
    },
    async read(g, cap, label) {
      // A chain id is upstream text: checked before it becomes a label.
      const checked = (await readTransactionSummaries(store)).map((r) => ({
        ...r,
        chainId: label('glacier_transactions_collected', r.chainId),
      }));
      // The busiest chains keep their own series.
      const rows = mergeSameLabels(checked, (r) => `${r.network}/${r.chainId}`, combine).sort(
        (a, b) => b.transactions - a.transactions,
      );
      const kept = cap('glacier_transactions_collected', 'chains', rows, {
        unitOf: (r) => `${r.network}/${r.chainId}`,
        foldKeyOf: (r) => r.network,
        fold: (into, r) => combine(into, { ...r, chainId: OTHER }),
      });
      for (const r of kept) {
        const labels = { network: r.network, chain: r.chainId };
        g.collected.set(labels, r.transactions);
        g.newest.set(labels, r.newestBlockTimestamp);
      }
    },
  });
}

/** Two rows of one series added up (chains counted as one: over the cap, or invalid ids). */
function combine(into: TransactionSummary | undefined, r: TransactionSummary): TransactionSummary {
  return {
    network: r.network,
    chainId: r.chainId,
    transactions: (into?.transactions ?? 0) + r.transactions,
    newestBlockTimestamp: Math.max(into?.newestBlockTimestamp ?? 0, r.newestBlockTimestamp),
  };
}
