/** The transactions job's handler; its definition (name, config key, cost) is transactions.definition.ts. */
import type { JobContext, JobHandler } from '../src/kernel/index.js';
import { contextOf, type RestoreRecord } from '../src/kernel/index.js';
import { upsertTransactions } from '../src/store/index.js';
import { type NewestFirstStream, syncNewestFirst } from '../src/sync/newest-first.js';
import { canonicalNetwork, type Network, recheckRecord, type Transaction } from '../src/upstream/index.js';
import { type TransactionsPayload, transactionScope } from './transactions.definition.js';

export type { TransactionsPayload } from './transactions.definition.js';

const txId = (tx: Transaction) => `${tx.chainId}:${tx.txHash}`;

/** One (network, status) stream of the job, as `syncNewestFirst` walks it. */
export function transactionStream(
  payload: TransactionsPayload,
  ctx: JobContext,
  network: Network,
  status: TransactionsPayload['statuses'][number],
): NewestFirstStream<Transaction> {
  const now = () => new Date(ctx.clock.now()).toISOString();
  return {
    scope: transactionScope(network, status),
    fetchPage: async (pageToken) =>
      ctx.client.listLatestTransactions(
        { network, status: status === 'all' ? undefined : status, pageSize: payload.pageSize, pageToken },
        { signal: ctx.signal },
      ),
    mark: (tx) => ({ ts: tx.blockTimestamp, id: txId(tx) }),
    // Same-second neighbours of the mark may sit on either side of it, so only the mark itself or
    // an older second ends the walk; the whole page is written either way (upserts are idempotent).
    reached: (tx, mark) => tx.blockTimestamp < mark.ts || txId(tx) === mark.id,
    // A page re-read on every run (a quiet chain's newest page) may hold rows past the retention:
    // writing them would bring back what the maintenance job pruned, at every run.
    write: (tx, items) => upsertTransactions(tx, network, retained(items, payload, ctx), now()),
    where: { context: { network: canonicalNetwork(network) } },
    maxPages: payload.maxPages,
    backfill: false,
  };
}

/** The page's rows younger than the retention (all of them with `forever`). */
function retained(items: Transaction[], payload: TransactionsPayload, ctx: JobContext): Transaction[] {
  if (payload.retention === undefined) return items;
  const oldest = (ctx.clock.now() - payload.retention) / 1000;
  return items.filter((tx) => tx.blockTimestamp >= oldest);
}

/**
 * GET /v1/transactions, one stream per (network, status), newest first down to the last run's
 * newest transaction. The first run of a stream reads `maxPages` pages: the feed is "latest
 * transactions", not an archive to backfill.
 */
export const transactions: JobHandler<TransactionsPayload> = async (payload, ctx) => {
  for (const network of payload.networks) {
    for (const status of payload.statuses) {
      const result = await syncNewestFirst(ctx, transactionStream(payload, ctx, network, status));
      ctx.log.debug({ network, status, ...result }, 'transactions stream synced');
    }
  }
};

/** A transaction set aside, checked again: stored on its network when it passes (`--retry-rejected`). */
export const restore: RestoreRecord = async (tx, record, at) => {
  const checked = recheckRecord('transactions', record.raw);
  if (!checked.ok) return { rejected: checked.rejected };
  const network = String(contextOf(record)['network'] ?? 'mainnet');
  return { stored: await upsertTransactions(tx, network, [checked.value], at) };
};
