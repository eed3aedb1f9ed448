/**
 * The live stream of EVM transactions, one per network (`fuji` and `testnet` share one).
 *
 * Transaction `i` of a network is a pure function of (seed, network, i); it appears at
 * `originMs + i * 60000 / txPerMinute`, so the number existing at any instant is computable and a
 * page costs O(page), never O(data set). Index 0 is the oldest; the API lists newest first, so a
 * page scans indices downward from a keyset position.
 */
import type { Clock } from '../../runtime/clock.js';
import { hash32, unit } from '../ids.js';
import type { NativeTransaction } from '../types.js';
import type { NetworkGroup } from '../validation.js';
import { BLOCK_MS, chainFor } from './chains.js';
import { buildTransaction } from './evm.js';

export type TxStatusFilter = 'failed' | 'success';

export interface TxFilter {
  group: NetworkGroup;
  status?: TxStatusFilter;
}

/** Share of transactions that failed (txStatus "0"). */
export const FAILED_SHARE = 0.08;

export interface TxPage {
  items: NativeTransaction[];
  /** Exclusive upper bound of the next page's indices; undefined on the last page. */
  nextBefore: number | undefined;
}

/** A keyset position of the transactions list (an index bound), as a page token carries it. */
export function isTxPosition(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

export interface TransactionSource {
  /** How many transactions of a network exist at `nowMs` (indices 0..count-1). */
  countAt(nowMs: number): number;
  /** Transactions matching the filter with index < before, newest first. */
  page(filter: TxFilter, before: number, limit: number): TxPage;
  build(group: NetworkGroup, index: number): NativeTransaction;
  matches(filter: TxFilter, index: number): boolean;
}

export interface TransactionSourceDeps {
  seed: number;
  clock: Clock;
  txPerMinute: number;
  /** Transactions that already exist at epochMs. */
  initialTransactions: number;
  epochMs: number;
}

const GROUP_CODE: Record<NetworkGroup, number> = { mainnet: 1, testnet: 2 };

export function createTransactionSource(deps: TransactionSourceDeps): TransactionSource {
  const { seed, txPerMinute } = deps;
  const msPerTx = 60_000 / txPerMinute;
  // Index initialTransactions - 1 is the one at the epoch: exactly initialTransactions exist then.
  const originMs = deps.epochMs - Math.floor((deps.initialTransactions - 1) * msPerTx);
  const timeOf = (i: number): number => originMs + Math.floor(i * msPerTx);

  function countAt(nowMs: number): number {
    if (nowMs < originMs) return 0;
    let n = Math.floor(((nowMs - originMs) * txPerMinute) / 60_000) + 1;
    // Float rounding can put the estimate one off either way; settle it against timeOf.
    while (n > 0 && timeOf(n - 1) > nowMs) n--;
    while (timeOf(n) <= nowMs) n++;
    return n;
  }

  const isFailed = (group: NetworkGroup, i: number): boolean =>
    unit(hash32(seed, GROUP_CODE[group], i, 7)) < FAILED_SHARE;

  function matches(filter: TxFilter, i: number): boolean {
    if (filter.status === undefined) return true;
    return isFailed(filter.group, i) === (filter.status === 'failed');
  }

  function build(group: NetworkGroup, i: number): NativeTransaction {
    const timeMs = timeOf(i);
    const slotMs = Math.floor(timeMs / BLOCK_MS) * BLOCK_MS;
    // Unique within the slot across all chains of the network, hence unique within each block.
    const blockIndex = i - countAt(slotMs - 1);
    return buildTransaction({
      seed,
      key: `tx:${group}:${i}`,
      chain: chainFor(group, unit(hash32(seed, GROUP_CODE[group], i, 3))),
      slotMs,
      blockIndex,
      failed: isFailed(group, i),
    });
  }

  function page(filter: TxFilter, before: number, limit: number): TxPage {
    const items: NativeTransaction[] = [];
    let i = before - 1;
    let lastIndex = before;
    for (; i >= 0 && items.length < limit; i--) {
      if (!matches(filter, i)) continue;
      items.push(build(filter.group, i));
      lastIndex = i;
    }
    // Look ahead for one more match, so the last page carries no token (and no empty page follows).
    for (; i >= 0; i--) {
      if (matches(filter, i)) return { items, nextBefore: lastIndex };
    }
    return { items, nextBefore: undefined };
  }

  return { countAt, page, build, matches };
}
