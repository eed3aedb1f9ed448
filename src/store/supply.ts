import type { Supply } from '../upstream/index.js';
import { memo } from './memo.js';
import type { Store } from './open.js';
import { supplySnapshots } from './schema.js';
import { createUpsert } from './upsert.js';

/** Stores a supply answer once per distinct `lastUpdated`; returns 1 when it was new. */
export function insertSupplySnapshot(store: Store, supply: Supply, fetchedAt: string): number {
  const insert = memo(store, 'supply.insert', () =>
    createUpsert(store.sqlite, supplySnapshots, { key: ['lastUpdated'], update: [] }),
  );
  return insert([
    {
      lastUpdated: supply.lastUpdated,
      circulatingSupply: supply.circulatingSupply,
      totalSupply: supply.totalSupply,
      totalPBurned: supply.totalPBurned,
      totalCBurned: supply.totalCBurned,
      totalXBurned: supply.totalXBurned,
      totalStaked: supply.totalStaked,
      totalLocked: supply.totalLocked,
      totalRewards: supply.totalRewards,
      genesisUnlock: supply.genesisUnlock,
      l1ValidatorFees: supply.l1ValidatorFees,
      fetchedAt,
    },
  ]);
}
