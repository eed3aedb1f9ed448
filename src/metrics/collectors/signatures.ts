import type { Config } from '../../config/index.js';
import { countStoredSignatures, type Store } from '../../store/index.js';
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
    },
    async read(g) {
      if (!job) return;
      const network = canonicalNetwork(job.network);
      const wanted = new Set(job.txHashes).size;
      const collected = await countStoredSignatures(store, network, job.txHashes);
      g.collected.set({ network }, collected);
      g.missing.set({ network }, wanted - collected);
    },
  });
}
