import type { JobHandler } from '../src/kernel/index.js';
import { defineJob } from '../src/kernel/index.js';
import { insertSupplySnapshot } from '../src/store/index.js';

export type SupplyPayload = Record<string, never>;

/** GET /v1/avax/supply: one snapshot per distinct `lastUpdated`. */
export const supply: JobHandler<SupplyPayload> = async (_payload, ctx) => {
  const answer = await ctx.client.getSupply({ signal: ctx.signal });
  const fetchedAt = new Date(ctx.clock.now()).toISOString();
  const { written, recorded } = await ctx.store.transaction(async (tx) => ({
    written: await insertSupplySnapshot(tx, answer, fetchedAt),
    // The answer is one snapshot, checked whole: only its drift can be found beside it.
    recorded: await ctx.recordFindings(tx, answer.findings, { scope: 'all', context: {} }),
  }));
  ctx.countRows(written);
  ctx.noteFindings(recorded);
};

export const supplyJob = defineJob({
  name: 'supply',
  configKey: 'supply',
  table: 'supply_snapshots',
  handler: supply,
  payload: () => ({}),
  cost: () => ({ steady: { supply: 1 }, worst: { supply: 1 }, rows: { steady: 1, worst: 1 } }),
});
