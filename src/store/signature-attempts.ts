/** Why a configured transaction has no signature yet (signature_attempts, description.ts). */
import { canonicalNetwork } from '../upstream/endpoints.js';
import { signatureAttempts } from './schema.js';
import { planUpsert, type Sql } from './sql.js';
import { selectList } from './tables.js';

export type SignatureOutcome = 'not_found' | 'below_quorum' | 'refused';

export type SignatureAttempt = typeof signatureAttempts.$inferSelect;

/** The attempts recorded for `txHashes` on `network`, by hash. */
export async function findSignatureAttempts(
  sql: Sql,
  network: string,
  txHashes: readonly string[],
): Promise<Map<string, SignatureAttempt>> {
  if (txHashes.length === 0) return new Map();
  const list = sql.inList('tx_hash', [...new Set(txHashes)]);
  const rows = await sql.all<SignatureAttempt>(
    `SELECT ${selectList(signatureAttempts)} FROM signature_attempts WHERE network = ? AND ${list.clause} ORDER BY tx_hash`,
    [canonicalNetwork(network), list.param],
  );
  return new Map(
    rows.map((r) => [r.txHash, { ...r, status: Number(r.status), failures: Number(r.failures) }]),
  );
}

const upsert = planUpsert(signatureAttempts, { key: ['network', 'txHash'] });

/** Records (or replaces) why `txHash` is still unsigned after a run. */
export function recordSignatureAttempt(sql: Sql, attempt: SignatureAttempt): Promise<number> {
  return sql.upsert(upsert, [{ ...attempt, network: canonicalNetwork(attempt.network) }]);
}

/** Forgets the attempts of a transaction whose signature is now stored. */
export function deleteSignatureAttempt(sql: Sql, network: string, txHash: string): Promise<number> {
  return sql.run('DELETE FROM signature_attempts WHERE network = ? AND tx_hash = ?', [
    canonicalNetwork(network),
    txHash,
  ]);
}

/** Configured transactions still unsigned, by outcome (those with a signature stored are not counted). */
export async function countSignatureAttempts(
  sql: Sql,
  network: string,
  txHashes: readonly string[],
): Promise<Record<SignatureOutcome, number>> {
  const counts: Record<SignatureOutcome, number> = { not_found: 0, below_quorum: 0, refused: 0 };
  for (const attempt of (await findSignatureAttempts(sql, network, txHashes)).values()) {
    if (attempt.outcome in counts) counts[attempt.outcome as SignatureOutcome]++;
  }
  return counts;
}
