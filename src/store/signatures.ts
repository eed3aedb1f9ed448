import { canonicalNetwork } from '../upstream/endpoints.js';
import { signatures } from './schema.js';
import { planUpsert, type Sql } from './sql.js';

/** Which of `txHashes` already have a stored signature on `network`. */
export async function findStoredSignatures(
  sql: Sql,
  network: string,
  txHashes: readonly string[],
): Promise<Set<string>> {
  if (txHashes.length === 0) return new Set();
  const rows = await sql.all<{ txHash: string }>(
    `SELECT tx_hash AS "txHash" FROM signatures WHERE network = ? AND tx_hash IN (${txHashes.map(() => '?').join(',')})`,
    [canonicalNetwork(network), ...txHashes],
  );
  return new Set(rows.map((r) => r.txHash));
}

const upsert = planUpsert(signatures, {
  key: ['network', 'txHash'],
  update: ['signedMessage', 'fetchedAt'],
  compare: ['signedMessage'],
});

/** Stores (or replaces, if it changed) the aggregated signature of a transaction; returns 1 if written. */
export function upsertSignature(
  sql: Sql,
  network: string,
  txHash: string,
  signedMessage: string,
  fetchedAt: string,
): Promise<number> {
  return sql.upsert(upsert, [{ network: canonicalNetwork(network), txHash, signedMessage, fetchedAt }]);
}
