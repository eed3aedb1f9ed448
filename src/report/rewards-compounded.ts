import Big from 'big.js';
import type { PricedReward, StoredCycle } from '../store/index.js';

/**
 * Compounded income of ACP-236 auto-renewed validations in the rewards report. A settled cycle's
 * compounded part (`compoundedValidationReward + compoundedDelegateeReward`) is restaked into the
 * validator's weight and produces no UTXO, so it is in no reward row; the final reward of a position
 * (its graceful exit, or its abort) re-pays every reward compounded before. When that counts as
 * income is the user's choice (`--compounded`, `jobs.rewards.compoundedIncome`), because
 * jurisdictions differ:
 *
 * - `at-compounding`: each cycle's compounded part is income at the cycle's end (a row of kind
 *   `compounded`); the final reward then counts only its part not compounded before, the rest a row
 *   of kind `restakedReturn`, shown but never counted again;
 * - `at-withdrawal`: compounded parts are not income when they compound; the final reward is income
 *   in full.
 *
 * Either way, over a position's life the income adds up, to the nAVAX, to what it earned: the sum of
 * its cycles' gross rewards.
 */
export const COMPOUNDED_INCOME = ['at-compounding', 'at-withdrawal'] as const;
export type CompoundedIncome = (typeof COMPOUNDED_INCOME)[number];
/** Why at-compounding is the default: docs/configuration.md (`jobs.rewards.compoundedIncome`). */
export const DEFAULT_COMPOUNDED_INCOME: CompoundedIncome = 'at-compounding';

/** What a report row is: a paid reward (a UTXO), a cycle's compounded part, or a return of it. */
export type RowKind = 'paid' | 'compounded' | 'restakedReturn';
/** The label of each kind, in the CSV's `kind` column and the tax tools' descriptions. */
export const ROW_KIND_LABELS: Record<RowKind, string> = {
  paid: 'paid',
  compounded: 'compounded (restaked)',
  restakedReturn: 'return of restaked rewards',
};

/** The mode named by `--compounded`, or an error message naming both valid values. */
export function parseCompounded(
  value: string | undefined,
  fallback: CompoundedIncome,
): { ok: true; mode: CompoundedIncome } | { ok: false; message: string } {
  if (value === undefined) return { ok: true, mode: fallback };
  if ((COMPOUNDED_INCOME as readonly string[]).includes(value)) {
    return { ok: true, mode: value as CompoundedIncome };
  }
  return {
    ok: false,
    message: `--compounded "${value}": not a choice; use at-compounding (compounded rewards are income when a cycle restakes them) or at-withdrawal (income when paid out)`,
  };
}

/** A position's final reward: what of each reward type was compounded before it. */
interface FinalCycle {
  priorValidation: bigint;
  priorDelegatee: bigint;
}

/**
 * The final cycles (exited, aborted) by their reward tx, each with what its position compounded in
 * the cycles before it (from every stored cycle, whatever the range).
 */
export function finalCycles(cycles: readonly StoredCycle[]): Map<string, FinalCycle> {
  const byPosition = new Map<string, StoredCycle[]>();
  for (const c of cycles) {
    const list = byPosition.get(c.stakingTxHash) ?? [];
    list.push(c);
    byPosition.set(c.stakingTxHash, list);
  }
  const out = new Map<string, FinalCycle>();
  for (const list of byPosition.values()) {
    for (const final of list) {
      if (final.outcome === 'renewed') continue;
      let priorValidation = 0n;
      let priorDelegatee = 0n;
      for (const c of list) {
        if (c.cycleIndex >= final.cycleIndex) continue;
        priorValidation += BigInt(c.compoundedValidationReward);
        priorDelegatee += BigInt(c.compoundedDelegateeReward);
      }
      out.set(final.rewardTxHash, { priorValidation, priorDelegatee });
    }
  }
  return out;
}

/**
 * In nAVAX, the part of a stored reward that re-pays rewards compounded before (at-compounding's
 * return of restaked rewards): 0 unless it is the final reward of an auto-renewed position.
 */
export function restakedPart(r: PricedReward, finals: ReadonlyMap<string, FinalCycle>): bigint {
  if (r.stakingType !== 'autoRenewed') return 0n;
  const final = finals.get(r.rewardTxHash);
  if (!final) return 0n;
  const prior =
    r.rewardType === 'VALIDATOR'
      ? final.priorValidation
      : r.rewardType === 'VALIDATOR_FEE'
        ? final.priorDelegatee
        : 0n;
  const amount = BigInt(r.amount);
  return prior > amount ? amount : prior;
}

/** nAVAX as AVAX text with 9 decimals, exact. */
export const nanoToAvax = (nano: bigint | string): string => new Big(`${nano}e-9`).toFixed(9);

/** A cycle's compounded amount, nAVAX. */
export const compoundedOf = (c: StoredCycle): bigint =>
  BigInt(c.compoundedValidationReward) + BigInt(c.compoundedDelegateeReward);
