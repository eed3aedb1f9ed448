import type { JobHandler } from '../src/kernel/index.js';
import { defineJob } from '../src/kernel/index.js';
import { insertSupplySnapshot } from '../src/store/index.js';

export type SupplyPayload = Record<string, never>;

/** GET /v1/avax/supply: one snapshot per distinct `lastUpdated`. */
export const supply: JobHandler<SupplyPayload> = async (_payload, ctx) => {
  const answer = await ctx.client.getSupply({ signal: ctx.signal });
  const fetchedAt = new Date(ctx.clock.now()).toISOString();
  ctx.countRows(await ctx.store.transaction(async (tx) => insertSupplySnapshot(tx, answer, fetchedAt)));
};

export const supplyJob = defineJob({
  name: 'supply',
  configKey: 'supply',
  table: 'supply_snapshots',
  handler: supply,
  payload: () => ({}),
  cost: () => ({ steady: { supply: 1 }, worst: { supply: 1 }, rows: { steady: 1, worst: 1 } }),
});
