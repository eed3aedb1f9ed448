import type { Config } from '../../config/index.js';
import { countSignatureAttempts, countStoredSignatures, type Store } from '../../store/index.js';
import { canonicalNetwork } from '../../upstream/index.js';
import type { Scrape } from '../scrape.js';

/** The configured transactions' aggregated signatures: stored, and still missing. */
export function defineSignaturesCollector(scrape: Scrape, store: Store, config: Config): void {
  const job = config.jobs.signatures;
  scrape.define({
    name: 'signatures',
    families: {
      collected: {
        name: 'glacier_signatures_collected',
        help: 'Configured transactions whose aggregated signature is stored.',
        labelNames: ['network'],
      },
      missing: {
        name: 'glacier_signatures_missing',
        help: 'Configured transactions without a stored aggregated signature yet.',
        labelNames: ['network'],
      },
      unsigned: {
        name: 'glacier_signatures_unsigned',
        help: 'Configured transactions the aggregator did not sign on their last attempt, by outcome: not_found, below_quorum, refused.',
        labelNames: ['network', 'outcome'],
      },
    },
    async read(g) {
      if (!job) return;
      const network = canonicalNetwork(job.network);
      const wanted = new Set(job.txHashes).size;
      const collected = await countStoredSignatures(store, network, job.txHashes);
      g.collected.set({ network }, collected);
      g.missing.set({ network }, wanted - collected);
      const unsigned = await countSignatureAttempts(store, network, job.txHashes);
      for (const [outcome, n] of Object.entries(unsigned)) g.unsigned.set({ network, outcome }, n);
    },
  });
}
