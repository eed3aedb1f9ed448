import { getTableColumns } from 'drizzle-orm';
import { canonicalNetwork, type Transaction } from '../upstream/index.js';
import { transactions } from './schema.js';
import type { Sql } from './sql.js';
import { withTransactionSummary } from './summaries.js';
import { createUpsert } from './upsert.js';

type Row = typeof transactions.$inferInsert;

export function transactionRow(tx: Transaction, network: string, seenAt: string): Row {
  return {
    chainId: tx.chainId,
    txHash: tx.txHash,
    network: canonicalNetwork(network),
    blockNumber: tx.blockNumber,
    blockTimestamp: tx.blockTimestamp,
    blockTimestampMs: tx.blockTimestampMilliseconds ?? null,
    blockMinDelayExcess: tx.blockMinDelayExcess ?? null,
    blockHash: tx.blockHash,
    blockIndex: tx.blockIndex,
    txStatus: tx.txStatus,
    txType: tx.txType,
    gasLimit: tx.gasLimit,
    gasUsed: tx.gasUsed,
    gasPrice: tx.gasPrice,
    nonce: tx.nonce,
    value: tx.value,
    fromAddress: tx.from.address,
    fromName: tx.from.name ?? null,
    fromSymbol: tx.from.symbol ?? null,
    fromDecimals: tx.from.decimals ?? null,
    fromLogoUri: tx.from.logoUri ?? null,
    toAddress: tx.to?.address ?? null,
    toName: tx.to?.name ?? null,
    toSymbol: tx.to?.symbol ?? null,
    toDecimals: tx.to?.decimals ?? null,
    toLogoUri: tx.to?.logoUri ?? null,
    methodCallType: tx.method?.callType ?? null,
    methodHash: tx.method?.methodHash ?? null,
    methodName: tx.method?.methodName ?? null,
    firstSeenAt: seenAt,
    lastSeenAt: seenAt,
  };
}

const contentColumns = (Object.keys(getTableColumns(transactions)) as (keyof Row)[]).filter(
  (c) => !['chainId', 'txHash', 'firstSeenAt', 'lastSeenAt'].includes(c),
);

const upsert = createUpsert(transactions, {
  key: ['chainId', 'txHash'],
  update: contentColumns,
  touch: 'lastSeenAt',
});

/**
 * Upserts a page of transactions through `sql` (the page's transaction); returns how many rows were
 * new or changed (a re-org can move a transaction to another block). Rows seen again unchanged only
 * get `last_seen_at`.
 */
export async function upsertTransactions(
  sql: Sql,
  network: string,
  txs: readonly Transaction[],
  seenAt: string,
): Promise<number> {
  if (txs.length === 0) return 0;
  const rows: Row[] = new Array(txs.length);
  for (let i = 0; i < txs.length; i++) rows[i] = transactionRow(txs[i]!, network, seenAt);
  return withTransactionSummary(sql, rows, () => upsert(sql, rows));
}
