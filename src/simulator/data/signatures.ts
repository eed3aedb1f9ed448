/**
 * Aggregated signatures: a deterministic hex message per (seed, network, txHash). `fuji` and
 * `testnet` are one network. A txHash starting with eight `1`s (an id of leading zero bytes, which
 * no real transaction has) has no warp message: the endpoint answers 404 for it.
 */
import { digest } from '../ids.js';
import type { NetworkGroup } from '../validation.js';

export const NOT_FOUND_PREFIX = '11111111';

export function hasSignature(txHash: string): boolean {
  return !txHash.startsWith(NOT_FOUND_PREFIX);
}

export function signedMessage(seed: number, group: NetworkGroup, txHash: string): string {
  const head = digest(seed, 'warp', group, txHash);
  // 200 to 455 bytes: a warp message header, payload and BLS signature are a few hundred bytes.
  const length = 200 + (head[0] ?? 0);
  const chunks: Buffer[] = [];
  for (let j = 0, size = 0; size < length; j++) {
    const chunk = digest(seed, 'warp', group, txHash, j);
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, length).toString('hex');
}
