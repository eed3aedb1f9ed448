import type { Supply } from '../upstream/index.js';
import { supplySnapshots } from './schema.js';
import { planUpsert, type Sql } from './sql.js';

const insert = planUpsert(supplySnapshots, { key: ['lastUpdated'], update: [] });

/** Stores a supply answer once per distinct `lastUpdated`; returns 1 when it was new. */
export function insertSupplySnapshot(sql: Sql, supply: Supply, fetchedAt: string): Promise<number> {
  return sql.upsert(insert, [
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
