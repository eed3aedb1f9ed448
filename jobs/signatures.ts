/** The signatures job's handler; its definition (name, config key, cost) is signatures.definition.ts. */
import type { SignaturesJobConfig } from '../src/config/index.js';
import type { JobHandler } from '../src/kernel/index.js';
import { contextOf, type RestoreRecord } from '../src/kernel/index.js';
import { findRejectedIds, findStoredSignatures, upsertSignature } from '../src/store/index.js';
import {
  canonicalNetwork,
  RecordRejectedError,
  recheckRecord,
  UpstreamHttpError,
} from '../src/upstream/index.js';

export type SignaturesPayload = Pick<SignaturesJobConfig, 'network' | 'txHashes'>;

/**
 * Aggregated signatures for the configured P-Chain/X-Chain transactions: one request per hash not
 * stored yet. A hash the API does not know (404) is logged and asked again next run. An answer that
 * fails its checks is set aside (rejected_records, keyed `network:txHash`) and not asked for again:
 * `run signatures --retry-rejected` stores it once a version accepts it. Any other error fails the run.
 */
export const signatures: JobHandler<SignaturesPayload> = async (payload, ctx) => {
  const network = canonicalNetwork(payload.network);
  const stored = await findStoredSignatures(ctx.store, payload.network, payload.txHashes);
  const setAside = await findRejectedIds(
    ctx.store,
    ctx.job,
    payload.txHashes.map((h) => `${network}:${h}`),
  );
  const where = (txHash: string) => ({
    scope: network,
    keyPrefix: `${network}:`,
    context: { network, txHash },
  });
  for (const txHash of new Set(payload.txHashes)) {
    if (stored.has(txHash) || setAside.has(`${network}:${txHash}`)) continue;
    try {
      const answer = await ctx.client.getAggregatedSignatures(
        { network: payload.network, txHash },
        { signal: ctx.signal },
      );
      const fetchedAt = new Date(ctx.clock.now()).toISOString();
      await ctx.commit(
        async (tx) => ({
          rows: await upsertSignature(tx, payload.network, txHash, answer.signedMessage, fetchedAt),
          findings: answer.findings,
        }),
        { where: where(txHash) },
      );
    } catch (err) {
      if (err instanceof UpstreamHttpError && err.status === 404) {
        ctx.log.warn({ txHash }, 'no aggregated signature for this transaction yet');
        continue;
      }
      if (err instanceof RecordRejectedError) {
        // The answer is the record: its key is the request's.
        const findings = {
          ...err.findings,
          rejected: err.findings.rejected.map((r) => ({ ...r, key: txHash })),
        };
        await ctx.commit(async () => ({ rows: 0, findings }), { where: where(txHash) });
        continue;
      }
      throw err;
    }
  }
};

/** A signature set aside, checked again: stored for its transaction when it passes. */
export const restore: RestoreRecord = async (tx, record, at) => {
  const checked = recheckRecord('signatures', record.raw);
  if (!checked.ok) return { rejected: checked.rejected };
  const context = contextOf(record);
  const network = String(context['network'] ?? 'mainnet');
  const txHash = String(context['txHash'] ?? '');
  return { stored: await upsertSignature(tx, network, txHash, checked.value.signedMessage, at) };
};
