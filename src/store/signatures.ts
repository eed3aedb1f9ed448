import { and, eq, inArray } from 'drizzle-orm';
import { canonicalNetwork } from '../upstream/index.js';
import { memo } from './memo.js';
import type { Store } from './open.js';
import { signatures } from './schema.js';
import { createUpsert } from './upsert.js';

/** Which of `txHashes` already have a stored signature on `network`. */
export function findStoredSignatures(
  store: Store,
  network: string,
  txHashes: readonly string[],
): Set<string> {
  if (txHashes.length === 0) return new Set();
  const rows = store.db
    .select({ txHash: signatures.txHash })
    .from(signatures)
    .where(and(eq(signatures.network, canonicalNetwork(network)), inArray(signatures.txHash, [...txHashes])))
    .all();
  return new Set(rows.map((r) => r.txHash));
}

/** Stores (or replaces, if it changed) the aggregated signature of a transaction; returns 1 if written. */
export function upsertSignature(
  store: Store,
  network: string,
  txHash: string,
  signedMessage: string,
  fetchedAt: string,
): number {
  const upsert = memo(store, 'signatures.upsert', () =>
    createUpsert(store.sqlite, signatures, {
      key: ['network', 'txHash'],
      update: ['signedMessage', 'fetchedAt'],
      compare: ['signedMessage'],
    }),
  );
  return upsert([{ network: canonicalNetwork(network), txHash, signedMessage, fetchedAt }]);
}
