import type { Gauge } from 'prom-client';
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
      // A stored figure that is no number (NaN) exposes no series rather than failing the scrape.
      const set = (gauge: Gauge, value: number, labels?: { chain: string }) => {
        if (!Number.isFinite(value)) return;
        if (labels) gauge.set(labels, value);
        else gauge.set(value);
      };
      set(g.circulating, decimalToNumber(s.circulatingSupply));
      set(g.total, decimalToNumber(s.totalSupply));
      set(g.staked, decimalToNumber(s.totalStaked));
      set(g.locked, decimalToNumber(s.totalLocked));
      set(g.rewards, decimalToNumber(s.totalRewards));
      set(g.genesisUnlock, decimalToNumber(s.genesisUnlock));
      set(g.l1ValidatorFees, decimalToNumber(s.l1ValidatorFees));
      set(g.burned, decimalToNumber(s.totalPBurned), { chain: 'p' });
      set(g.burned, decimalToNumber(s.totalCBurned), { chain: 'c' });
      set(g.burned, decimalToNumber(s.totalXBurned), { chain: 'x' });
      set(g.lastUpdated, Date.parse(s.lastUpdated) / 1000);
    },
  });
}
