/** The supply job's handler; its definition (name, config key, cost) is supply.definition.ts. */
import type { JobHandler } from '../src/kernel/index.js';
import { insertSupplySnapshot } from '../src/store/index.js';

export type SupplyPayload = Record<string, never>;

/** GET /v1/avax/supply: one snapshot per distinct `lastUpdated`. */
export const supply: JobHandler<SupplyPayload> = async (_payload, ctx) => {
  const answer = await ctx.client.getSupply({ signal: ctx.signal });
  const fetchedAt = new Date(ctx.clock.now()).toISOString();
  // The answer is one snapshot, checked whole: only its drift can be found beside it.
  await ctx.commit(async (tx) => ({
    rows: await insertSupplySnapshot(tx, answer, fetchedAt),
    findings: answer.findings,
  }));
};
