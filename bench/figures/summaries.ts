/**
 * What the metrics summaries cost the writers, per page of 100 items in one transaction: for
 * transactions, `upsertTransactions` (which counts the page into transaction_summaries) against the
 * same upsert without the count; for rewards, `upsertRewards` with the summary triggers of
 * drizzle/*_metrics_summaries.sql against the same with those triggers dropped. New rows, and rows
 * read again (nothing is counted: `last_seen_at` is not a counted column).
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getTableColumns } from 'drizzle-orm';
import { storeLocation } from '../../src/config/index.js';
import {
  openStore,
  type Sql,
  type Store,
  tables,
  transactionRow,
  upsertRewards,
  upsertTransactions,
} from '../../src/store/index.js';
import { planUpsert } from '../../src/store/sql.js';
import type { HistoricalReward, Transaction } from '../../src/upstream/index.js';
import { tempDir } from '../../test/support/tmp.js';
import { type Figure, figure, median, scaled } from '../lib.js';

const PAGES = scaled(300, 2);
const PAGE = 100;

function transaction(i: number): Transaction {
  return {
    chainId: ['43114', '1', '8453'][i % 3]!,
    txHash: `0x${i.toString(16).padStart(64, '0')}`,
    blockNumber: String(1_000_000 + i),
    blockTimestamp: 1_700_000_000 + i,
    blockHash: `0x${(i >> 4).toString(16).padStart(64, '0')}`,
    blockIndex: i % 16,
    txStatus: '1',
    txType: 2,
    gasLimit: '21000',
    gasUsed: '21000',
    gasPrice: '25000000000',
    nonce: String(i),
    value: '1000000000000000000',
    from: { address: '0x00000000000000000000000000000000000000aa' },
    to: {
      address: '0x00000000000000000000000000000000000000bb',
      name: 'Wrapped AVAX',
      symbol: 'WAVAX',
      decimals: 18,
    },
    method: { callType: 'NATIVE_TRANSFER', methodHash: '', methodName: 'Native Transfer' },
  } as unknown as Transaction;
}

function reward(i: number): HistoricalReward {
  return {
    addresses: [`avax1address${i % 40}`, `avax1shared${i % 7}`],
    txHash: `tx${i}`,
    amountStaked: '2000000000000',
    nodeId: `NodeID-${i % 20}`,
    startTimestamp: 1_690_000_000,
    endTimestamp: 1_700_000_000 + i,
    rewardType: (['VALIDATOR', 'DELEGATOR', 'VALIDATOR_FEE'] as const)[i % 3],
    utxoId: `utxo${i}`,
    outputIndex: 0,
    reward: {
      assetId: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
      name: 'Avalanche',
      symbol: 'AVAX',
      denomination: 9,
      type: 'secp256k1',
      amount: String(1_000_000 + i),
      historicalPrice: { currencyCode: 'usd', value: '21.5' },
    },
    rewardTxHash: `rtx${i}`,
  } as unknown as HistoricalReward;
}

const TRIGGERS = [
  'rewards_summary_insert',
  'rewards_summary_delete',
  'rewards_summary_update',
  'reward_addresses_summary_insert',
  'reward_addresses_summary_delete',
  'reward_prices_summary_insert',
  'reward_prices_summary_delete',
  'reward_prices_summary_update',
];

/** ms per page: every page written once (new rows), then every page again (known rows). */
async function measure(
  store: Store,
  write: (tx: Sql, page: number) => Promise<unknown>,
): Promise<{ fresh: number[]; again: number[] }> {
  const fresh: number[] = [];
  const again: number[] = [];
  for (const into of [fresh, again]) {
    for (let page = 0; page < PAGES; page++) {
      const t = performance.now();
      await store.transaction((tx) => write(tx, page));
      into.push(performance.now() - t);
    }
  }
  return { fresh, again };
}

export async function run(): Promise<Figure[]> {
  const { dir, cleanup } = tempDir('glacier-bench-summaries-');
  const figures: Figure[] = [];
  try {
    const txPage = (page: number) => Array.from({ length: PAGE }, (_, i) => transaction(page * PAGE + i));
    const seenAt = '2025-06-15T12:00:00.000Z';
    /** The transactions upsert as upsertTransactions builds it, without the summary. */
    const bare = planUpsert(tables.transactions, {
      key: ['chainId', 'txHash'],
      update: (Object.keys(getTableColumns(tables.transactions)) as never[]).filter(
        (c) => !['chainId', 'txHash', 'firstSeenAt', 'lastSeenAt'].includes(c),
      ),
      touch: 'lastSeenAt',
    });
    const writers = {
      transactions: {
        with: (tx: Sql, page: number) => upsertTransactions(tx, 'mainnet', txPage(page), seenAt),
        without: (tx: Sql, page: number) =>
          tx.upsert(
            bare,
            txPage(page).map((t) => transactionRow(t, 'mainnet', seenAt)),
          ),
      },
      rewards: {
        with: (tx: Sql, page: number) =>
          upsertRewards(
            tx,
            'mainnet',
            Array.from({ length: PAGE }, (_, i) => reward(page * PAGE + i)),
            seenAt,
          ),
        without: async (tx: Sql, page: number) => {
          for (const t of TRIGGERS) await tx.exec(`DROP TRIGGER IF EXISTS ${t}`);
          return upsertRewards(
            tx,
            'mainnet',
            Array.from({ length: PAGE }, (_, i) => reward(page * PAGE + i)),
            seenAt,
          );
        },
      },
    };
    for (const [name, write] of Object.entries(writers)) {
      const results = {
        with: [] as Awaited<ReturnType<typeof measure>>[],
        without: [] as Awaited<ReturnType<typeof measure>>[],
      };
      // Two rounds, alternating, each on fresh databases.
      for (let round = 0; round < 2; round++) {
        for (const side of ['without', 'with'] as const) {
          const store = await openStore(storeLocation(join(dir, `${name}-${side}-${round}.db`)));
          results[side].push(await measure(store, write[side]));
          await store.close();
        }
      }
      const of = (side: 'with' | 'without', key: 'fresh' | 'again') =>
        median(results[side].flatMap((r) => r[key]));
      figures.push(
        figure({
          id: `summaries.${name}.new`,
          title: `${name}: a page of 100 new rows with the metrics summary triggers`,
          unit: 'ms/page',
          value: of('with', 'fresh'),
          baseline: of('without', 'fresh'),
          baselineLabel: 'the same writes without the summary',
          note: `adds ${(of('with', 'fresh') - of('without', 'fresh')).toFixed(3)} ms per page`,
        }),
        figure({
          id: `summaries.${name}.again`,
          title: `${name}: a page of 100 rows read again with the metrics summary triggers`,
          unit: 'ms/page',
          value: of('with', 'again'),
          baseline: of('without', 'again'),
          baselineLabel: 'the same writes without the summary',
          note: `adds ${(of('with', 'again') - of('without', 'again')).toFixed(3)} ms per page`,
        }),
      );
    }
    return figures;
  } finally {
    cleanup();
  }
}
