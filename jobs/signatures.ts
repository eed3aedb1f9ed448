/** The signatures job's handler; its definition (name, config key, cost) is signatures.definition.ts. */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SignaturesJobConfig } from '../src/config/index.js';
import type { JobContext, JobHandler } from '../src/kernel/index.js';
import { contextOf, type RestoreRecord, scrubSecrets } from '../src/kernel/index.js';
import {
  deleteSignatureAttempt,
  findRejectedIds,
  findSignatureAttempts,
  findStoredSignatures,
  recordSignatureAttempt,
  type SignatureAttempt,
  type SignatureOutcome,
  upsertSignature,
} from '../src/store/index.js';
import {
  canonicalNetwork,
  RecordRejectedError,
  recheckRecord,
  UpstreamHttpError,
  upstreamMessage,
} from '../src/upstream/index.js';

export type SignaturesPayload = Pick<SignaturesJobConfig, 'network' | 'txHashes'> &
  Partial<Pick<SignaturesJobConfig, 'belowQuorumPauses'>>;

/**
 * The aggregator's answers when it could not gather a threshold of stake: transient, the validators'
 * own P-Chain replicas may not have seen the transaction yet (builders-hub's aggregationRetry.ts).
 */
const BELOW_QUORUM = /failed to connect to a threshold of stake|signature weight is insufficient/i;

/** Backoff across runs, per outcome: the first wait, doubled per run in a row, up to the cap. */
const BACKOFF: Record<SignatureOutcome, { firstMs: number; capMs: number }> = {
  // A transaction the API does not know yet is asked on the next run (it costs one request).
  not_found: { firstMs: 0, capMs: 0 },
  below_quorum: { firstMs: 10 * 60_000, capMs: 6 * 3_600_000 },
  // Refused (a transaction without a warp message…): its answer will hardly change; once a day at most.
  refused: { firstMs: 3_600_000, capMs: 24 * 3_600_000 },
};

/** How long after its `failures`-th run in a row a hash of this outcome is asked again. */
export function signatureBackoffMs(outcome: SignatureOutcome, failures: number): number {
  const { firstMs, capMs } = BACKOFF[outcome];
  return Math.min(capMs, firstMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
}

/**
 * What an error says of one hash: an outcome of its own, or undefined when the API as a whole failed
 * (a network error, 401/403: the key, 408/429/5xx after the client's retries): the run fails then.
 */
export function signatureOutcomeOf(err: unknown): SignatureOutcome | undefined {
  if (!(err instanceof UpstreamHttpError)) return undefined;
  if (BELOW_QUORUM.test(upstreamText(err))) return 'below_quorum';
  if (err.status === 404) return 'not_found';
  if (err.retryable || err.status === 401 || err.status === 403 || err.status >= 500) return undefined;
  return err.status >= 400 ? 'refused' : undefined;
}

/** The API's own text of an error (its JSON body's message, or a body that is not JSON), escaped and cut. */
function upstreamText(err: UpstreamHttpError): string {
  return upstreamMessage(err.body) ?? '';
}

/** The section's digest: a refused hash is asked again at once when the configuration changes. */
function configDigest(payload: SignaturesPayload): string {
  const hashes = [...new Set(payload.txHashes)].sort();
  return createHash('sha256')
    .update(JSON.stringify([canonicalNetwork(payload.network), hashes]))
    .digest('hex')
    .slice(0, 16);
}

type Asked =
  | { signed: Awaited<ReturnType<JobContext['client']['getAggregatedSignatures']>> }
  | { outcome: SignatureOutcome; error: UpstreamHttpError };

/** One hash asked for, below-quorum answers retried after each pause; other errors are thrown. */
async function ask(
  ctx: JobContext,
  network: SignaturesPayload['network'],
  txHash: string,
  pausesS: number[],
) {
  for (let attempt = 0; ; attempt++) {
    try {
      return {
        signed: await ctx.client.getAggregatedSignatures({ network, txHash }, { signal: ctx.signal }),
      };
    } catch (err) {
      const outcome = signatureOutcomeOf(err);
      if (outcome === undefined || !(err instanceof UpstreamHttpError)) throw err;
      const pause = pausesS[attempt];
      if (outcome !== 'below_quorum' || pause === undefined) return { outcome, error: err } satisfies Asked;
      ctx.log.info({ txHash, pauseSeconds: pause }, 'signature below quorum; asking again after a pause');
      await sleep(pause * 1000, undefined, { signal: ctx.signal });
    }
  }
}

/**
 * Aggregated signatures for the configured P-Chain/X-Chain transactions, one hash at a time: each
 * hash not stored yet is asked for and ends with its own outcome, never keeping the others from
 * theirs. Stored; not found (404: asked again next run); below quorum (retried after each of
 * `belowQuorumPauses`, then on later runs with backoff); refused (another 4xx: its message kept in
 * signature_attempts, asked again after its backoff or when the section changes). An answer that
 * fails its checks is set aside (rejected_records, keyed `network:txHash`) and not asked for again:
 * `run signatures --retry-rejected` stores it once a version accepts it. The run fails only when the
 * API as a whole does (a network error, 401/403, 5xx or 429 after the client's retries).
 */
export const signatures: JobHandler<SignaturesPayload> = async (payload, ctx) => {
  const network = canonicalNetwork(payload.network);
  const hashes = [...new Set(payload.txHashes)];
  const stored = await findStoredSignatures(ctx.store, payload.network, hashes);
  const setAside = await findRejectedIds(
    ctx.store,
    ctx.job,
    hashes.map((h) => `${network}:${h}`),
  );
  const attempts = await findSignatureAttempts(ctx.store, network, hashes);
  const digest = configDigest(payload);
  const where = (txHash: string) => ({
    scope: network,
    keyPrefix: `${network}:`,
    context: { network, txHash },
  });
  for (const txHash of hashes) {
    if (stored.has(txHash) || setAside.has(`${network}:${txHash}`)) continue;
    const prior = attempts.get(txHash);
    const now = ctx.clock.now();
    // Compute units only on what can still succeed: a hash in its backoff waits, unless the section changed.
    if (prior && prior.configDigest === digest && Date.parse(prior.nextAttemptAt) > now) continue;
    let asked: Asked;
    try {
      asked = await ask(ctx, payload.network, txHash, payload.belowQuorumPauses ?? [5, 10, 20]);
    } catch (err) {
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
    const at = new Date(ctx.clock.now()).toISOString();
    if ('signed' in asked) {
      const answer = asked.signed;
      await ctx.commit(
        async (tx) => {
          const rows = await upsertSignature(tx, payload.network, txHash, answer.signedMessage, at);
          await deleteSignatureAttempt(tx, network, txHash);
          return { rows, findings: answer.findings };
        },
        { where: where(txHash) },
      );
      continue;
    }
    const failures = prior && prior.configDigest === digest ? prior.failures + 1 : 1;
    const attempt: SignatureAttempt = {
      network,
      txHash,
      outcome: asked.outcome,
      status: asked.error.status,
      message: scrubSecrets(upstreamText(asked.error) || String(asked.error.status), ctx.secrets ?? []),
      failures,
      firstFailedAt: prior?.firstFailedAt ?? at,
      lastAttemptAt: at,
      nextAttemptAt: new Date(ctx.clock.now() + signatureBackoffMs(asked.outcome, failures)).toISOString(),
      configDigest: digest,
    };
    await ctx.commit(async (tx) => {
      await recordSignatureAttempt(tx, attempt);
      return { rows: 0 };
    });
    const log = {
      txHash,
      status: attempt.status,
      message: attempt.message,
      nextAttemptAt: attempt.nextAttemptAt,
    };
    if (asked.outcome === 'not_found') ctx.log.warn(log, 'no aggregated signature for this transaction yet');
    else if (asked.outcome === 'below_quorum')
      ctx.log.warn(log, 'signature still below quorum; asked again later');
    else ctx.log.warn(log, 'the aggregator refused this transaction; asked again after its backoff');
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
