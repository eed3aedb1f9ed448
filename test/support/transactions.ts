import type { Transaction } from '../../src/upstream/index.js';

/**
 * A transaction as the client parses one, with only the fields the store writes: a hash from `i`,
 * block time 1000 + i; `overrides` change any of them.
 */
export function evmTransaction(i: number, overrides: Partial<Transaction> = {}): Transaction {
  return {
    chainId: '43114',
    txHash: `0x${i}`,
    blockNumber: String(i),
    blockTimestamp: 1000 + i,
    blockHash: '0xb',
    blockIndex: 0,
    txStatus: '1',
    txType: 2,
    gasLimit: '1',
    gasUsed: '1',
    gasPrice: '1',
    nonce: '1',
    value: '1',
    from: { address: '0xa' },
    to: { address: '0xc' },
    ...overrides,
  } as Transaction;
}
