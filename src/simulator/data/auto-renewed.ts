/**
 * ACP-236 auto-renewed validations (shapes: src/upstream/auto-renew.ts), on the test network only
 * (Helicon is live on Fuji, unscheduled on Mainnet: a Mainnet node has none, its `/cycles` list is
 * empty). Deterministic from (seed, node id) and moving with the clock: a cycle settles when its
 * window ends.
 *
 * A node has an auto-renewed validation when a hash of (seed, node id) says so (about half the Fuji
 * nodes; `hasAutoRenewed`). Its history is one of three, by the same hash:
 * - `renewing`: one position, renewed cycle after cycle until now (and on);
 * - `exited`: a first position that exited gracefully after 5 cycles (its final reward re-pays every
 *   reward compounded before), then a second one renewing;
 * - `aborted`: a first position aborted in its 4th cycle (uptime below the 80 % threshold: that
 *   cycle's validation reward forfeited, the accrued rewards returned), then a second one renewing.
 *
 * Each settled cycle splits its reward by the share: the compounded part raises the next cycle's
 * weight and pays no UTXO; the withdrawn parts are reward rows (`VALIDATOR`, and `VALIDATOR_FEE` for
 * the delegatee commission) with `stakingType: autoRenewed`, paid by the cycle's `rewardTxHash`.
 */
import type { AutoRenew, AutoRenewedCycle, CurrentAutoRenewedCycle } from '../../upstream/auto-renew.js';
import { deriveBech32Address, deriveCb58Id, digest } from '../ids.js';
import type { HistoricalReward } from '../types.js';
import type { NetworkGroup } from '../validation.js';
import type { ValidatorDetails } from '../validator-types.js';
import type { ValidatorSource } from './validators.js';

const DAY = 86_400;
const CYCLE_SECONDS = 14 * DAY;
/** Annual validation reward rate of the simulated positions, in basis points (7 %). */
const RATE_BP = 700n;
const YEAR = BigInt(365 * DAY);
const NANO = 1_000_000_000n;

export type AutoRenewedHistory = 'renewing' | 'exited' | 'aborted';

export interface AutoRenewedPosition {
  nodeId: string;
  /** The AddAutoRenewedValidatorTx. */
  stakingTxHash: string;
  /** The reward owner (validation and delegation rewards alike). */
  rewardAddress: string;
  startTimestamp: number;
  stake: bigint;
  autoCompoundSharePercent: number;
  /** Settled cycles, oldest first. */
  cycles: AutoRenewedCycle[];
  /** The cycle in flight; undefined once the position ended. */
  current: CurrentAutoRenewedCycle | undefined;
  /** How it ended, when it did. */
  ended: { outcome: 'exited' | 'aborted'; at: number } | undefined;
  /** Restaked so far (the sums of the compounded parts of the settled cycles). */
  accruedValidationRewards: bigint;
  accruedDelegateeRewards: bigint;
}

function draw(seed: number, nodeId: string, ...parts: ReadonlyArray<string | number>): number {
  return digest(seed, 'auto-renewed', nodeId, ...parts).readUInt32BE(0);
}

/** Whether the node has auto-renewed validations (test network only). */
export function hasAutoRenewed(seed: number, group: NetworkGroup, nodeId: string): boolean {
  return group === 'testnet' && draw(seed, nodeId, 'has') % 2 === 0;
}

export function historyOf(seed: number, nodeId: string): AutoRenewedHistory {
  return (['renewing', 'exited', 'aborted'] as const)[draw(seed, nodeId, 'history') % 3]!;
}

/** The node's auto-renewed positions at `nowSec`, oldest first; empty for a node with none. */
export function autoRenewedPositions(
  seed: number,
  group: NetworkGroup,
  nodeId: string,
  nowSec: number,
  epochSec: number,
): AutoRenewedPosition[] {
  if (!hasAutoRenewed(seed, group, nodeId)) return [];
  const history = historyOf(seed, nodeId);
  // The first position starts 150 to 180 days before the epoch, so several cycles are settled at once.
  const firstStart = epochSec - (150 + (draw(seed, nodeId, 'start') % 30)) * DAY;
  const rewardAddress = deriveBech32Address('fuji', seed, 'owner', nodeId);
  if (history === 'renewing')
    return [position(seed, nodeId, 0, firstStart, rewardAddress, nowSec, undefined)];
  const cycles = history === 'exited' ? 5 : 4;
  const first = position(seed, nodeId, 0, firstStart, rewardAddress, nowSec, { outcome: history, cycles });
  const secondStart = firstStart + cycles * CYCLE_SECONDS + DAY;
  if (secondStart > nowSec) return [first];
  return [first, position(seed, nodeId, 1, secondStart, rewardAddress, nowSec, undefined)];
}

function position(
  seed: number,
  nodeId: string,
  n: number,
  start: number,
  rewardAddress: string,
  nowSec: number,
  end: { outcome: 'exited' | 'aborted'; cycles: number } | undefined,
): AutoRenewedPosition {
  const stakingTxHash = deriveCb58Id(seed, 'auto-renewed-stake', nodeId, n);
  const stake = BigInt(2_000 + (draw(seed, nodeId, n, 'stake') % 3_000)) * NANO;
  const share = [25, 50, 90][draw(seed, nodeId, n, 'share') % 3]!;
  const cycles: AutoRenewedCycle[] = [];
  let accruedV = 0n;
  let accruedD = 0n;
  let ended: AutoRenewedPosition['ended'];
  for (let i = 1; ; i++) {
    const cycleStart = start + (i - 1) * CYCLE_SECONDS;
    const cycleEnd = cycleStart + CYCLE_SECONDS;
    const weight = stake + accruedV + accruedD;
    const delegated =
      draw(seed, nodeId, n, i, 'delegated') % 3 === 0
        ? 0n
        : BigInt(100 + (draw(seed, nodeId, n, i, 'd') % 900)) * NANO;
    if (cycleEnd > nowSec) {
      return {
        nodeId,
        stakingTxHash,
        rewardAddress,
        startTimestamp: start,
        stake,
        autoCompoundSharePercent: share,
        cycles,
        current: {
          cycleIndex: i,
          stakingTxHash,
          startTimestamp: cycleStart,
          endTimestamp: cycleEnd,
          weightAtCycleStart: String(weight),
          projectedValidationReward: String((weight * RATE_BP * BigInt(CYCLE_SECONDS)) / (10_000n * YEAR)),
          accruedDelegateeReward: '0',
          autoCompoundSharePercent: share,
          state: end && i === end.cycles ? 'exiting' : 'renewing',
          delegatorCount: delegated === 0n ? 0 : 1,
          amountDelegated: String(delegated),
        },
        ended: undefined,
        accruedValidationRewards: accruedV,
        accruedDelegateeRewards: accruedD,
      };
    }
    const last = end !== undefined && i === end.cycles;
    const potential = (weight * RATE_BP * BigInt(CYCLE_SECONDS)) / (10_000n * YEAR);
    // The delegatee commission: 5 % of what the delegations earned in the window.
    const commission = (delegated * RATE_BP * BigInt(CYCLE_SECONDS) * 5n) / (10_000n * YEAR * 100n);
    const outcome = last ? end.outcome : 'renewed';
    const grossV = outcome === 'aborted' ? 0n : potential;
    // Renewed: split by the share; the final cycle withdraws everything.
    const compoundedV = outcome === 'renewed' ? (grossV * BigInt(share)) / 100n : 0n;
    const compoundedD = outcome === 'renewed' ? (commission * BigInt(share)) / 100n : 0n;
    cycles.push({
      cycleIndex: i,
      rewardTxHash: deriveCb58Id(seed, 'auto-renewed-reward', nodeId, n, i),
      stakingTxHash,
      startTimestamp: cycleStart,
      endTimestamp: cycleEnd,
      weightAtCycleStart: String(weight),
      grossValidationReward: String(grossV),
      withdrawnValidationReward: String(grossV - compoundedV),
      compoundedValidationReward: String(compoundedV),
      grossDelegateeReward: String(commission),
      withdrawnDelegateeReward: String(commission - compoundedD),
      compoundedDelegateeReward: String(compoundedD),
      autoCompoundSharePercent: share,
      outcome,
      delegatorCount: delegated === 0n ? 0 : 1,
      amountDelegated: String(delegated),
    });
    if (last) {
      ended = { outcome: end.outcome, at: cycleEnd };
      return {
        nodeId,
        stakingTxHash,
        rewardAddress,
        startTimestamp: start,
        stake,
        autoCompoundSharePercent: share,
        cycles,
        current: undefined,
        ended,
        accruedValidationRewards: accruedV,
        accruedDelegateeRewards: accruedD,
      };
    }
    accruedV += compoundedV;
    accruedD += compoundedD;
  }
}

/** A reward row of an auto-renewed position, without its asset (the reward source adds it and its price). */
export type AutoRenewedRewardRow = Omit<HistoricalReward, 'reward'> & { amount: string };

/**
 * The reward rows of a node's auto-renewed positions, oldest first: per settled cycle its withdrawn
 * validation reward (`VALIDATOR`) and commission (`VALIDATOR_FEE`), when not zero. A position's
 * final cycle re-pays what was compounded before (graceful exit: all of it; abort: the accrued
 * rewards returned, the cycle's own validation reward forfeited).
 */
export function autoRenewedRewards(positions: readonly AutoRenewedPosition[]): AutoRenewedRewardRow[] {
  const out: AutoRenewedRewardRow[] = [];
  for (const p of positions) {
    let accruedV = 0n;
    let accruedD = 0n;
    for (const c of p.cycles) {
      const final = c.outcome !== 'renewed';
      const parts: ['VALIDATOR' | 'VALIDATOR_FEE', bigint][] = [
        ['VALIDATOR', BigInt(c.withdrawnValidationReward) + (final ? accruedV : 0n)],
        ['VALIDATOR_FEE', BigInt(c.withdrawnDelegateeReward) + (final ? accruedD : 0n)],
      ];
      parts.forEach(([rewardType, amount], outputIndex) => {
        if (amount === 0n) return;
        out.push({
          addresses: [p.rewardAddress],
          txHash: p.stakingTxHash,
          amountStaked: c.weightAtCycleStart,
          nodeId: p.nodeId,
          startTimestamp: c.startTimestamp,
          endTimestamp: c.endTimestamp,
          rewardType,
          utxoId: deriveCb58Id('auto-renewed-utxo', c.rewardTxHash, outputIndex),
          outputIndex,
          rewardTxHash: c.rewardTxHash,
          stakingType: 'autoRenewed',
          amount: String(amount),
        });
      });
      accruedV += BigInt(c.compoundedValidationReward);
      accruedD += BigInt(c.compoundedDelegateeReward);
    }
  }
  return out;
}

/**
 * The `autoRenew` object of a node's auto-renewed validation object (for the validators routes):
 * the position whose validation spans `atSec` (else the latest), as the SDK's AutoRenewDetails; and
 * undefined for a node without one. `stakingTxHash` tells which validation it belongs to.
 */
export function autoRenewFor(
  seed: number,
  group: NetworkGroup,
  nodeId: string,
  nowSec: number,
  epochSec: number,
): { stakingTxHash: string; startTimestamp: number; autoRenew: AutoRenew }[] {
  return autoRenewedPositions(seed, group, nodeId, nowSec, epochSec).map((p) => ({
    stakingTxHash: p.stakingTxHash,
    startTimestamp: p.startTimestamp,
    autoRenew: {
      state: p.ended ? p.ended.outcome : (p.current?.state ?? 'renewing'),
      nextPeriodSeconds: p.ended || p.current?.state === 'exiting' ? 0 : CYCLE_SECONDS,
      autoCompoundSharePercent: p.autoCompoundSharePercent,
      compoundedWeight: String(p.stake + p.accruedValidationRewards + p.accruedDelegateeRewards),
      // Restaked from prior cycles: the sums of what the settled cycles compounded.
      accruedValidationRewards: String(p.accruedValidationRewards),
      accruedDelegateeRewards: String(p.accruedDelegateeRewards),
      validationRewardAddresses: [p.rewardAddress],
      delegationRewardAddresses: [p.rewardAddress],
      exitReason: p.ended ? (p.ended.outcome === 'exited' ? 'graceful' : 'uptime_not_met') : null,
      endedAtTimestamp: p.ended?.at ?? null,
    },
  }));
}

/** Every settled cycle of the node (all positions), in `sortOrder` of (end time, cycle index). */
export function settledCycles(
  positions: readonly AutoRenewedPosition[],
  sortOrder: 'asc' | 'desc',
  txHash?: string,
): AutoRenewedCycle[] {
  const all = positions
    .filter((p) => txHash === undefined || p.stakingTxHash === txHash)
    .flatMap((p) => p.cycles);
  all.sort((a, b) => a.endTimestamp - b.endTimestamp || a.cycleIndex - b.cycleIndex);
  return sortOrder === 'asc' ? all : all.reverse();
}

/** The auto-renewed positions of one simulator, at its clock (the cycles route and the rewards read it). */
export interface AutoRenewedSource {
  positions(group: NetworkGroup, nodeId: string): AutoRenewedPosition[];
  /** `autoRenewFor` at the clock: the `autoRenew` of each of the node's auto-renewed validations. */
  autoRenew(group: NetworkGroup, nodeId: string): ReturnType<typeof autoRenewFor>;
}

export function createAutoRenewedSource(deps: {
  seed: number;
  now: () => number;
  epochMs: number;
}): AutoRenewedSource {
  return {
    positions: (group, nodeId) =>
      autoRenewedPositions(deps.seed, group, nodeId, Math.floor(deps.now() / 1000), deps.epochMs / 1000),
    autoRenew: (group, nodeId) =>
      autoRenewFor(deps.seed, group, nodeId, Math.floor(deps.now() / 1000), deps.epochMs / 1000),
  };
}

const PRIMARY_NETWORK = '11111111111111111111111111111111LpoYY';

/**
 * The validation objects of a node's auto-renewed positions, as GET …/validators/{nodeId} lists them
 * (the SDK's next release): `stakingType: autoRenewed` and their `autoRenew`; active while renewing
 * (its window the current cycle's, its weight the compounded one), completed once it exited or aborted
 * (its reward what the final cycle paid).
 */
export function autoRenewedValidations(
  positions: readonly AutoRenewedPosition[],
  details: ReturnType<typeof autoRenewFor>,
): ValidatorDetails[] {
  return positions.map((p) => {
    const autoRenew = details.find((d) => d.stakingTxHash === p.stakingTxHash)?.autoRenew ?? {};
    const weight = p.stake + p.accruedValidationRewards + p.accruedDelegateeRewards;
    const base = {
      txHash: p.stakingTxHash,
      nodeId: p.nodeId,
      subnetId: PRIMARY_NETWORK,
      amountStaked: String(weight),
      delegationFee: '5.0000',
      stakingType: 'autoRenewed',
      autoRenew: { ...autoRenew },
    };
    if (p.current) {
      return {
        ...base,
        validationStatus: 'active' as const,
        startTimestamp: p.current.startTimestamp,
        endTimestamp: p.current.endTimestamp,
        stakePercentage: 0.001,
        delegatorCount: p.current.delegatorCount,
        amountDelegated: p.current.amountDelegated,
        uptimePerformance: 99.5,
        avalancheGoVersion: 'avalanchego/1.14.0',
        delegationCapacity: String(weight * 4n),
        potentialRewards: {
          validationRewardAmount: p.current.projectedValidationReward,
          delegationRewardAmount: '0',
        },
        validatorHealth: {
          reachabilityPercent: 100,
          benchedPChainRequestsPercent: 0,
          benchedXChainRequestsPercent: 0,
          benchedCChainRequestsPercent: 0,
        },
        geolocation: null,
      };
    }
    const last = p.cycles.at(-1);
    return {
      ...base,
      validationStatus: 'completed' as const,
      startTimestamp: p.startTimestamp,
      endTimestamp: p.ended?.at ?? last?.endTimestamp ?? p.startTimestamp,
      delegatorCount: last?.delegatorCount ?? 0,
      amountDelegated: last?.amountDelegated ?? '0',
      rewards: {
        validationRewardAmount: String(
          BigInt(last?.withdrawnValidationReward ?? '0') + p.accruedValidationRewards,
        ),
        delegationRewardAmount: String(
          BigInt(last?.withdrawnDelegateeReward ?? '0') + p.accruedDelegateeRewards,
        ),
        rewardAddresses: [p.rewardAddress],
        ...(last && { rewardTxHash: last.rewardTxHash }),
      },
    };
  });
}

/** A validator source whose nodes also list their auto-renewed validations (newest start first). */
export function withAutoRenewedValidations(
  source: ValidatorSource,
  auto: AutoRenewedSource,
): ValidatorSource {
  return {
    ...source,
    validations(group, nodeId) {
      const plain = source.validations(group, nodeId);
      const positions = plain === undefined ? [] : auto.positions(group, nodeId);
      if (plain === undefined || positions.length === 0) return plain;
      const extra = autoRenewedValidations(positions, auto.autoRenew(group, nodeId));
      return [...plain, ...extra].sort(
        (a, b) => b.startTimestamp - a.startTimestamp || (a.txHash < b.txHash ? -1 : 1),
      );
    },
  };
}
