import { readLatestSupply, type Store } from '../../store/index.js';
import { decimalToNumber } from '../decimal.js';
import type { Scrape } from '../scrape.js';

const amount = (name: string, help: string) => ({
  name: `glacier_supply_${name}_avax`,
  help: `${help}, in AVAX.`,
});

/** The newest supply snapshot (GET /v1/avax/supply). */
export function defineSupplyCollector(scrape: Scrape, store: Store): void {
  scrape.define({
    name: 'supply',
    families: {
      circulating: amount('circulating', 'Circulating supply of the newest snapshot'),
      total: amount('total', 'Total supply of the newest snapshot'),
      staked: amount('staked', 'AVAX staked on the Primary Network'),
      locked: amount('locked', 'AVAX locked'),
      rewards: amount('rewards', 'Staking rewards paid out'),
      genesisUnlock: amount('genesis_unlock', 'AVAX unlocked from genesis allocations'),
      l1ValidatorFees: amount('l1_validator_fees', 'L1 validator fees paid'),
      burned: {
        name: 'glacier_supply_burned_avax',
        help: 'AVAX burned as fees, per chain (p, c, x), in AVAX.',
        labelNames: ['chain'],
      },
      lastUpdated: {
        name: 'glacier_supply_last_updated_timestamp_seconds',
        help: "The newest snapshot's lastUpdated, Unix seconds.",
      },
    },
    async read(g) {
      const s = await readLatestSupply(store);
      if (!s) return;
      g.circulating.set(decimalToNumber(s.circulatingSupply));
      g.total.set(decimalToNumber(s.totalSupply));
      g.staked.set(decimalToNumber(s.totalStaked));
      g.locked.set(decimalToNumber(s.totalLocked));
      g.rewards.set(decimalToNumber(s.totalRewards));
      g.genesisUnlock.set(decimalToNumber(s.genesisUnlock));
      g.l1ValidatorFees.set(decimalToNumber(s.l1ValidatorFees));
      g.burned.set({ chain: 'p' }, decimalToNumber(s.totalPBurned));
      g.burned.set({ chain: 'c' }, decimalToNumber(s.totalCBurned));
      g.burned.set({ chain: 'x' }, decimalToNumber(s.totalXBurned));
      g.lastUpdated.set(Date.parse(s.lastUpdated) / 1000);
    },
  });
}
