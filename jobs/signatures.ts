import type { SignaturesJobConfig } from '../src/config/index.js';
import type { JobHandler } from '../src/kernel/index.js';
import { defineJob, withoutSchedule } from '../src/kernel/index.js';
import { findStoredSignatures, upsertSignature } from '../src/store/index.js';
import { UpstreamHttpError } from '../src/upstream/index.js';

export type SignaturesPayload = Pick<SignaturesJobConfig, 'network' | 'txHashes'>;

/**
 * Aggregated signatures for the configured P-Chain/X-Chain transactions: one request per hash not
 * stored yet. A hash the API does not know (404) is logged and asked again next run; any other
 * error fails the run.
 */
export const signatures: JobHandler<SignaturesPayload> = async (payload, ctx) => {
  const stored = await findStoredSignatures(ctx.store, payload.network, payload.txHashes);
  for (const txHash of new Set(payload.txHashes)) {
    if (stored.has(txHash)) continue;
    try {
      const { signedMessage } = await ctx.client.getAggregatedSignatures(
        { network: payload.network, txHash },
        { signal: ctx.signal },
      );
      const fetchedAt = new Date(ctx.clock.now()).toISOString();
      ctx.countRows(
        await ctx.store.transaction(async (tx) =>
          upsertSignature(tx, payload.network, txHash, signedMessage, fetchedAt),
        ),
      );
    } catch (err) {
      if (err instanceof UpstreamHttpError && err.status === 404) {
        ctx.log.warn({ txHash }, 'no aggregated signature for this transaction yet');
        continue;
      }
      throw err;
    }
  }
};

export const signaturesJob = defineJob({
  name: 'signatures',
  configKey: 'signatures',
  table: 'signatures',
  handler: signatures,
  payload: (section) => withoutSchedule(section),
  cost: (section) => ({
    steady: {},
    worst: { signatures: new Set(section.txHashes).size },
    note: 'each hash is fetched once; the worst case is the first run',
  }),
});
