/**
 * One EVM transaction from its coordinates. Both the `/v1/transactions` stream and the CSV of EVM
 * exports build rows here, so a row of an export and an item of the list have the same rules
 * (block numbers from time, hashes from the seed, the same parties and methods).
 */
import { between, digest, hash32, hex0x, mulberry32, pick } from '../ids.js';
import type { NativeTransaction, RichAddress, TransactionMethod } from '../types.js';
import { blockNumberAt, type ChainInfo, knownContracts, knownMethods } from './chains.js';

export interface TxSpec {
  seed: number;
  /** Identifies the transaction among all the simulator generates, e.g. `tx:mainnet:42`. */
  key: string;
  chain: ChainInfo;
  /** Start of the transaction's 2-second block slot, ms. */
  slotMs: number;
  blockIndex: number;
  failed: boolean;
  /** An address that must be the sender or the recipient (export rows). */
  party?: { address: string; as: 'from' | 'to' };
}

/** Externally owned accounts per seed: a bounded pool, so addresses recur across transactions as they do on chain. */
const EOA_POOL_SIZE = 512;
const eoaPools = new Map<number, string[]>();

function eoa(seed: number, n: number): string {
  let pool = eoaPools.get(seed);
  if (!pool) {
    pool = [];
    eoaPools.set(seed, pool);
  }
  let address = pool[n];
  if (address === undefined) {
    address = hex0x(digest(seed, 'eoa', n).subarray(0, 20));
    pool[n] = address;
  }
  return address;
}

const contractAddresses = knownContracts.map((c) => hex0x(digest('contract', c.symbol).subarray(0, 20)));

/** Draws taken per transaction, always all of them, so one field's branch never shifts another's value. */
const DRAWS = 16;

export function buildTransaction(spec: TxSpec): NativeTransaction {
  const h = digest(spec.seed, spec.key);
  const rng = mulberry32(h.readUInt32BE(0) ^ h.readUInt32BE(4));
  const d = Array.from({ length: DRAWS }, rng) as number[] & { length: 16 };
  const draw = (i: number): number => d[i] ?? 0;

  const kind = draw(0);
  const callType = kind < 0.35 ? 'NATIVE_TRANSFER' : kind < 0.97 ? 'CONTRACT_CALL' : 'CONTRACT_CREATION';
  const contractIndex = Math.floor(draw(2) * knownContracts.length);
  const from: RichAddress = { address: eoa(spec.seed, Math.floor(draw(1) * EOA_POOL_SIZE)) };
  let to: RichAddress;
  let method: TransactionMethod;
  let value = '0';
  let gasLimit: number;
  switch (callType) {
    case 'NATIVE_TRANSFER':
      to = { address: eoa(spec.seed, Math.floor(draw(3) * EOA_POOL_SIZE)) };
      method = { callType, methodHash: '', methodName: 'Native Transfer' };
      value = (
        BigInt(between(draw(4), 1, 500_000)) * 10n ** 15n +
        BigInt(between(draw(5), 0, 999_999))
      ).toString();
      gasLimit = 21_000;
      break;
    case 'CONTRACT_CALL': {
      const contract = knownContracts[contractIndex];
      to = { ...contract, address: contractAddresses[contractIndex] ?? eoa(spec.seed, 0) };
      const m = pick(draw(6), knownMethods);
      method = { callType, methodHash: m.hash, methodName: m.name };
      if (m.hash === '0xd0e30db0' || m.hash === '0x7ff36ab5') {
        value = (BigInt(between(draw(4), 1, 200_000)) * 10n ** 14n).toString();
      }
      gasLimit = between(draw(7), 60_000, 800_000);
      break;
    }
    case 'CONTRACT_CREATION':
      to = { address: hex0x(digest(spec.seed, spec.key, 'created').subarray(0, 20)) };
      method = { callType, methodHash: '', methodName: 'Contract Created' };
      gasLimit = between(draw(7), 500_000, 5_000_000);
      break;
    default: {
      const never: never = callType;
      throw new Error(`unknown call type ${String(never)}`);
    }
  }
  if (spec.party) {
    if (spec.party.as === 'from') from.address = spec.party.address;
    else to = { address: spec.party.address };
  }
  const gasUsed =
    callType === 'NATIVE_TRANSFER' && !spec.failed
      ? gasLimit
      : Math.floor(gasLimit * (spec.failed ? 0.2 + draw(8) * 0.8 : 0.4 + draw(8) * 0.55));
  const gasPrice = between(draw(9), 1, 80) * 1_000_000_000 + between(draw(10), 0, 999_999_999);
  const typeDraw = draw(11);
  const blockNumber = blockNumberAt(spec.chain, spec.slotMs);
  // One millisecond offset per block, so every transaction of a block shares its timestamp.
  const blockMs = spec.slotMs + (hash32(spec.seed, Number(spec.chain.chainId), blockNumber) % 1000);

  const tx: NativeTransaction = {
    blockNumber: String(blockNumber),
    blockTimestamp: Math.floor(blockMs / 1000),
    blockHash: hex0x(digest(spec.seed, 'block', spec.chain.chainId, blockNumber)),
    chainId: spec.chain.chainId,
    blockIndex: spec.blockIndex,
    txHash: hex0x(h),
    txStatus: spec.failed ? '0' : '1',
    txType: typeDraw < 0.7 ? 2 : typeDraw < 0.95 ? 0 : 1,
    gasLimit: String(gasLimit),
    gasUsed: String(gasUsed),
    gasPrice: String(gasPrice),
    nonce: String(between(draw(12), 0, 20_000)),
    from,
    to,
    value,
  };
  // The optional fields are absent on some transactions, as on the real API (pre-Granite blocks, no method).
  if (hash32(spec.seed, Number(spec.chain.chainId), blockNumber, 2) % 100 >= 15) {
    tx.blockTimestampMilliseconds = blockMs;
    tx.blockMinDelayExcess = 7_000_000 + (hash32(spec.seed, blockNumber, 1) % 600_000);
  }
  if (draw(13) >= 0.08) tx.method = method;
  return tx;
}
