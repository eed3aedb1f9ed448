import { getTableColumns } from 'drizzle-orm';
import { canonicalNetwork } from '../upstream/endpoints.js';
import type { Transaction } from '../upstream/index.js';
import { transactions } from './schema.js';
import { planUpsert, type Sql } from './sql.js';

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

const upsert = planUpsert(transactions, {
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
  return withTransactionSummary(sql, rows, () => sql.upsert(upsert, rows));
}

/**
 * Writes a page of transactions with `write` and adds it to transaction_summaries. Call it inside the
 * page's transaction.
 *
 * SQLite: the rows not stored yet are counted per (network, chain) before the write (one prepared
 * primary-key lookup per row), and the newest block time is taken over the page (a re-org moves a
 * transaction to a later block), then one small upsert per chain of the page: about 0.05 ms per page
 * of 100, where a trigger costs a statement journal per row; the write lock makes the count exact.
 *
 * PostgreSQL: triggers keep the summary (drizzle/postgres/0002_transactions_summary_triggers.sql):
 * an INSERT … ON CONFLICT counts exactly the rows it inserted, whatever other hosts write at once,
 * without a lookup or a lock here.
 */
async function withTransactionSummary<T>(
  sql: Sql,
  rows: readonly { network: string; chainId: string; txHash: string; blockTimestamp: number }[],
  write: () => Promise<T>,
): Promise<T> {
  if (sql.triggersKeepTransactionSummaries) return write();
  const perChain = new Map<string, { network: string; chainId: string; fresh: number; newest: number }>();
  for (const row of rows) {
    const key = `${row.network}\n${row.chainId}`;
    const chain = perChain.get(key);
    if (!chain)
      perChain.set(key, { network: row.network, chainId: row.chainId, fresh: 0, newest: row.blockTimestamp });
    else if (row.blockTimestamp > chain.newest) chain.newest = row.blockTimestamp;
  }
  const stored = await storedTransactions(sql, rows);
  // A page may hold a row twice: count it once.
  const seen = new Set<string>();
  for (const row of rows) {
    const id = `${row.chainId}\n${row.txHash}`;
    if (!seen.has(id) && !stored.has(id)) perChain.get(`${row.network}\n${row.chainId}`)!.fresh++;
    seen.add(id);
  }
  const result = await write();
  for (const c of perChain.values()) {
    await sql.run(
      `INSERT INTO transaction_summaries (network, chain_id, transactions, newest_block_timestamp)
       VALUES (?, ?, ?, ?)
       ON CONFLICT (network, chain_id) DO UPDATE SET
         transactions = transaction_summaries.transactions + excluded.transactions,
         newest_block_timestamp = max(transaction_summaries.newest_block_timestamp, excluded.newest_block_timestamp)`,
      [c.network, c.chainId, c.fresh, c.newest],
    );
  }
  return result;
}

/** Which of the rows' (chain_id, tx_hash) are stored already, as `chain\nhash` (SQLite). */
async function storedTransactions(
  sql: Sql,
  rows: readonly { chainId: string; txHash: string }[],
): Promise<Set<string>> {
  const found = new Set<string>();
  // One prepared primary-key lookup per row beats a statement of a page's size.
  for (const row of rows) {
    const hit = await sql.get('SELECT 1 FROM transactions WHERE chain_id = ? AND tx_hash = ?', [
      row.chainId,
      row.txHash,
    ]);
    if (hit) found.add(`${row.chainId}\n${row.txHash}`);
  }
  return found;
}
