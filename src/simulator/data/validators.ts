/**
 * Validators, their delegators and their pending rewards. Every well-formed node id has its own
 * deterministic history, derived from a hash of (seed, network, node id):
 *
 * - Primary Network validations back to back from two years before the epoch, each 14 to 90 days
 *   long, 0 to 3 days apart (the operator re-stakes); the one covering now is `active`, those that
 *   ended `completed`, and in a gap the next one is listed `pending`.
 * - About one in six has an uptime below the 80 % reward threshold: it pays no reward at all (its
 *   completed `rewards` are "0" and carry no reward transaction), as the P-Chain decides.
 * - The reward a completed validation paid is exactly its `potentialRewards` while it was active and
 *   the `estimatedReward` its pending reward showed: one formula (stake × rate × duration ÷ year).
 * - Half of the nodes also validate a subnet (weight, no reward); some of those were `removed`.
 * - Delegators: each validation has 0 to 8 delegations, inside its window; `amountDelegated` and
 *   `delegatorCount` are their sums.
 *
 * Node ids without history (tests and the docs rely on them): a node id whose 20 bytes start with
 * two zero bytes is unknown (404); one starting with exactly one zero byte is known with no
 * validation (an empty list). `shortNodes` gives some node ids validations of `periodSeconds` each,
 * back to back from the epoch, so one ends during a demo or a test.
 */
import { cb58Decode, NODE_ID_BYTES, NODE_ID_PREFIX } from '../../upstream/identifiers.js';
import { deriveBech32Address, deriveCb58Id, deriveNodeId, digest, mulberry32 } from '../ids.js';
import type { NetworkGroup } from '../validation.js';
import type { DelegatorDetails, PendingReward, Rewards, ValidatorDetails } from '../validator-types.js';
import { avaxAssetId } from './rewards.js';

export const PRIMARY_NETWORK_SUBNET_ID = '11111111111111111111111111111111LpoYY';
/** The reward threshold of the Primary Network: below it a validation pays nothing. */
export const REWARD_UPTIME_THRESHOLD = 80;

const DAY = 86_400;
const YEAR = 365 * DAY;
const HISTORY_DAYS = 730;
const NANO = 1_000_000_000n;
/** Pool nodes: the validators of the list endpoint without a node filter (and rewards' delegations). */
export const VALIDATOR_POOL = 200;
/** Delegation weight allowed on a validator: 4 × its stake, at most 3M AVAX in all. */
const MAX_WEIGHT = 3_000_000n * NANO;

/** One validation as the source knows it (not yet a resource). */
export interface Spell {
  index: number;
  nodeId: string;
  subnetId: string;
  txHash: string;
  start: number;
  end: number;
  stake: bigint;
  /** Delegation fee in hundredths of a percent (200 = 2.00 %); 0 on a subnet. */
  feeBp: number;
  /** Annual reward rate, parts per million. */
  ratePpm: number;
  /** Uptime percentage it keeps (the observed one moves around it by up to ±1). */
  uptime: number;
  delegations: { amount: bigint; startOffset: number; k: number }[];
  /** A subnet validation removed before its end, at this time. */
  removedAt?: number;
  owner: string;
}

export interface ValidatorSourceDeps {
  seed: number;
  now: () => number;
  epochMs: number;
  /** Node ids whose validations last `periodSeconds` each, back to back from the epoch. */
  shortNodes?: { nodeIds: readonly string[]; periodSeconds: number } | undefined;
  /**
   * Fills `stakingType` / `autoRenew` on a built validator (the auto-renewed positions); identity
   * by default.
   */
  decorate?: ((group: NetworkGroup, validator: ValidatorDetails) => ValidatorDetails) | undefined;
}

export interface ValidatorSource {
  /** The node's validations at now, newest start first; undefined for a node the API does not know. */
  validations(group: NetworkGroup, nodeId: string): ValidatorDetails[] | undefined;
  /** Delegations to the node's validations at now (pending, active, completed), newest first. */
  delegators(group: NetworkGroup, nodeId: string): DelegatorDetails[];
  /** Pending rewards (the active stakes) of node ids and addresses, ending soonest first. */
  pendingRewards(group: NetworkGroup, subjects: { addresses: string[]; nodeIds: string[] }): PendingReward[];
  /** The pool node ids (the list endpoint's validators without a node filter). */
  pool(group: NetworkGroup): string[];
  /** The reward a validation pays if its uptime holds: validation and delegation parts, nAVAX. */
  rewardOf(spell: Spell): { validation: bigint; delegation: bigint };
  /** The node's validations as the source knows them (for the truth). */
  spells(group: NetworkGroup, nodeId: string): Spell[];
}

const hrpOf = (group: NetworkGroup): string => (group === 'mainnet' ? 'avax' : 'fuji');

/** `unknown`: 404; `empty`: known without validation; `normal` otherwise. */
export function nodeKind(nodeId: string): 'unknown' | 'empty' | 'normal' {
  if (!nodeId.startsWith(NODE_ID_PREFIX)) return 'unknown';
  const read = cb58Decode(nodeId.slice(NODE_ID_PREFIX.length), NODE_ID_BYTES);
  if (!read.ok) return 'unknown';
  if (read.payload[0] === 0 && read.payload[1] === 0) return 'unknown';
  if (read.payload[0] === 0) return 'empty';
  return 'normal';
}

const percentText = (bp: number) => `${Math.floor(bp / 100)}.${String(bp % 100).padStart(2, '0')}00`;

export function createValidatorSource(deps: ValidatorSourceDeps): ValidatorSource {
  const { seed } = deps;
  const historyStart = Math.floor(deps.epochMs / 1000 / DAY) * DAY - HISTORY_DAYS * DAY;
  const epochSec = Math.floor(deps.epochMs / 1000);
  const short = new Set(deps.shortNodes?.nodeIds ?? []);
  const shortPeriod = Math.max(1, Math.floor(deps.shortNodes?.periodSeconds ?? 60));
  const decorate = deps.decorate ?? ((_g, v) => v);

  function spellsOf(group: NetworkGroup, nodeId: string, nowSec: number): Spell[] {
    if (nodeKind(nodeId) !== 'normal') return [];
    const rng = mulberry32(digest(seed, 'validators', group, nodeId).readUInt32BE(0));
    const owner = deriveBech32Address(hrpOf(group), seed, 'validator-owner', nodeId);
    const out: Spell[] = [];
    const isShort = short.has(nodeId);
    let start = isShort ? epochSec - 10 * shortPeriod : historyStart + Math.floor(rng() * 20 * DAY);
    for (let i = 0; i < 10_000; i++) {
      // Nine draws per validation, always, so validation i never depends on the branches of earlier ones.
      const [dDur, dGap, dStake, dFee, dRate, dUp, dLow, dCount, dSplit] = Array.from({ length: 9 }, rng) as [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const duration = isShort ? shortPeriod : Math.floor((14 + dDur * 76) * DAY);
      const end = start + duration;
      const stake = BigInt(2_000 + Math.floor(dStake * 998_000)) * NANO + BigInt(Math.floor(dSplit * 1e9));
      const low = dLow < 1 / 6;
      const uptime = low ? 55 + dUp * 23 : 92 + dUp * 7.5;
      const count = Math.floor(dCount * 9);
      const room = (stake * 4n < MAX_WEIGHT - stake ? stake * 4n : MAX_WEIGHT - stake) / 2n;
      const delegations = Array.from({ length: count }, (_, k) => {
        const share = BigInt(
          1 + Math.floor(mulberry32(digest(seed, 'delegation', nodeId, i, k).readUInt32BE(0))() * 1000),
        );
        return { amount: (room * share) / 8000n + 25n * NANO, startOffset: Math.floor((k + 1) * 3600), k };
      });
      out.push({
        index: i,
        nodeId,
        subnetId: PRIMARY_NETWORK_SUBNET_ID,
        txHash: deriveCb58Id(seed, 'validation', group, nodeId, i),
        start,
        end,
        stake,
        feeBp: 200 + Math.floor(dFee * 800),
        ratePpm: 60_000 + Math.floor(dRate * 20_000),
        uptime: Math.round(uptime * 100) / 100,
        delegations: isShort ? [] : delegations,
        owner,
      });
      // The next one is listed pending in the gap; nothing later exists yet.
      if (start > nowSec) break;
      start = end + (isShort ? 0 : Math.floor(dGap * 3 * DAY));
    }
    // A subnet validation for half of the nodes: a year long, a third of them removed half-way.
    const sub = mulberry32(digest(seed, 'subnet-validation', group, nodeId).readUInt32BE(0));
    const [has, dStart, dRemoved] = [sub(), sub(), sub()];
    if (has < 0.5 && !isShort) {
      const subStart = historyStart + Math.floor(dStart * 600 * DAY);
      const spell: Spell = {
        index: 0,
        nodeId,
        subnetId: deriveCb58Id(seed, 'subnet', group, Math.floor(has * 10)),
        txHash: deriveCb58Id(seed, 'subnet-validation', group, nodeId),
        start: subStart,
        end: subStart + YEAR,
        stake: 20n,
        feeBp: 0,
        ratePpm: 0,
        uptime: 99,
        delegations: [],
        owner,
      };
      if (dRemoved < 1 / 3) spell.removedAt = subStart + Math.floor(YEAR / 2);
      if (subStart <= nowSec) out.push(spell);
    }
    return out;
  }

  function rewardOf(s: Spell): { validation: bigint; delegation: bigint } {
    if (s.ratePpm === 0) return { validation: 0n, delegation: 0n };
    const period = BigInt(s.end - s.start);
    const validation = (s.stake * BigInt(s.ratePpm) * period) / (1_000_000n * BigInt(YEAR));
    let delegation = 0n;
    for (const d of s.delegations) delegation += (delegationGross(s, d) * BigInt(s.feeBp)) / 10_000n;
    return { validation, delegation };
  }

  function delegationGross(s: Spell, d: Spell['delegations'][number]): bigint {
    const period = BigInt(s.end - (s.start + d.startOffset));
    return (d.amount * BigInt(s.ratePpm) * period) / (1_000_000n * BigInt(YEAR));
  }

  /** The observed uptime at now: its level, moving by up to ±1 from one hour to the next. */
  function uptimeAt(s: Spell, nowSec: number): number {
    const wobble =
      (digest(seed, 'uptime', s.txHash, Math.floor(nowSec / 3600)).readUInt16BE(0) / 65_535) * 2 - 1;
    return Math.min(100, Math.max(0, Math.round((s.uptime + wobble) * 100) / 100));
  }

  function build(
    group: NetworkGroup,
    s: Spell,
    nowSec: number,
    previousEnd: number | undefined,
  ): ValidatorDetails | undefined {
    const base = {
      txHash: s.txHash,
      nodeId: s.nodeId,
      subnetId: s.subnetId,
      amountStaked: String(s.stake),
      ...(s.feeBp > 0 && { delegationFee: percentText(s.feeBp) }),
      startTimestamp: s.start,
      endTimestamp: s.end,
    };
    const started = s.delegations.filter((d) => s.start + d.startOffset <= nowSec);
    const delegated = started.reduce((sum, d) => sum + d.amount, 0n);
    if (s.removedAt !== undefined && s.removedAt <= nowSec) {
      return decorate(group, {
        ...base,
        validationStatus: 'removed',
        removeTxHash: deriveCb58Id(seed, 'remove', group, s.txHash),
        removeTimestamp: s.removedAt,
      });
    }
    if (s.start > nowSec) {
      // Registered ahead: listed once the previous validation is over.
      if (previousEnd !== undefined && previousEnd > nowSec) return undefined;
      return decorate(group, { ...base, validationStatus: 'pending' });
    }
    const reward = rewardOf(s);
    if (s.end <= nowSec) {
      const paid = s.uptime >= REWARD_UPTIME_THRESHOLD && s.ratePpm > 0;
      const rewards: Rewards = paid
        ? {
            validationRewardAmount: String(reward.validation),
            delegationRewardAmount: String(reward.delegation),
            rewardAddresses: [s.owner],
            rewardTxHash: deriveCb58Id(seed, 'validation-reward', group, s.txHash),
          }
        : { validationRewardAmount: '0', delegationRewardAmount: '0' };
      return decorate(group, {
        ...base,
        validationStatus: 'completed',
        delegatorCount: s.delegations.length,
        amountDelegated: String(s.delegations.reduce((sum, d) => sum + d.amount, 0n)),
        rewards,
      });
    }
    const weightRoom = s.stake * 4n < MAX_WEIGHT - s.stake ? s.stake * 4n : MAX_WEIGHT - s.stake;
    const capacity = weightRoom > delegated ? weightRoom - delegated : 0n;
    const uptime = uptimeAt(s, nowSec);
    const geo = digest(seed, 'geo', s.nodeId).readUInt8(0);
    return decorate(group, {
      ...base,
      validationStatus: 'active',
      stakePercentage: Number((s.stake * 1_000_000n) / (250_000_000n * NANO)) / 10_000,
      delegatorCount: started.length,
      amountDelegated: String(delegated),
      uptimePerformance: uptime,
      avalancheGoVersion: 'avalanchego/1.13.2',
      delegationCapacity: String(capacity),
      potentialRewards: {
        validationRewardAmount: String(reward.validation),
        delegationRewardAmount: String(reward.delegation),
      },
      validatorHealth: {
        reachabilityPercent: uptime < REWARD_UPTIME_THRESHOLD ? Math.round(uptime) : 100,
        benchedPChainRequestsPercent: 0,
        benchedXChainRequestsPercent: 0,
        benchedCChainRequestsPercent: 0,
      },
      geolocation:
        geo < 180
          ? { city: 'Frankfurt', country: 'Germany', countryCode: 'DE', latitude: 50.1109, longitude: 8.6821 }
          : null,
    });
  }

  function validations(group: NetworkGroup, nodeId: string): ValidatorDetails[] | undefined {
    const kind = nodeKind(nodeId);
    if (kind === 'unknown') return undefined;
    const nowSec = Math.floor(deps.now() / 1000);
    const spells = spellsOf(group, nodeId, nowSec);
    const out: ValidatorDetails[] = [];
    let previousEnd: number | undefined;
    for (const s of spells) {
      const primary = s.subnetId === PRIMARY_NETWORK_SUBNET_ID;
      const v = build(group, s, nowSec, primary ? previousEnd : undefined);
      if (primary) previousEnd = s.end;
      if (v) out.push(v);
    }
    return out.sort((a, b) => b.startTimestamp - a.startTimestamp || (a.txHash < b.txHash ? -1 : 1));
  }

  function delegators(group: NetworkGroup, nodeId: string): DelegatorDetails[] {
    const nowSec = Math.floor(deps.now() / 1000);
    const hrp = hrpOf(group);
    const out: DelegatorDetails[] = [];
    for (const s of spellsOf(group, nodeId, nowSec)) {
      if (s.start > nowSec) continue;
      const paid = s.uptime >= REWARD_UPTIME_THRESHOLD;
      for (const d of s.delegations) {
        const start = s.start + d.startOffset;
        const gross = delegationGross(s, d);
        const net = gross - (gross * BigInt(s.feeBp)) / 10_000n;
        const base = {
          txHash: deriveCb58Id(seed, 'delegation', group, s.txHash, d.k),
          nodeId,
          rewardAddresses: [deriveBech32Address(hrp, seed, 'delegator', s.txHash, d.k)],
          amountDelegated: String(d.amount),
          delegationFee: percentText(s.feeBp),
          startTimestamp: start,
          endTimestamp: s.end,
        };
        if (s.end <= nowSec) {
          out.push({
            ...base,
            delegationStatus: 'completed',
            grossReward: paid ? String(gross) : '0',
            netReward: paid ? String(net) : '0',
          });
        } else {
          out.push({
            ...base,
            delegationStatus: start > nowSec ? 'pending' : 'active',
            estimatedGrossReward: String(gross),
            estimatedNetReward: String(net),
          });
        }
      }
    }
    return out.sort((a, b) => b.startTimestamp - a.startTimestamp || (a.txHash < b.txHash ? -1 : 1));
  }

  function pendingRewards(
    group: NetworkGroup,
    subjects: { addresses: string[]; nodeIds: string[] },
  ): PendingReward[] {
    const nowSec = Math.floor(deps.now() / 1000);
    const asset = {
      assetId: avaxAssetId[group],
      name: 'Avalanche',
      symbol: 'AVAX',
      denomination: 9,
      type: 'secp256k1' as const,
    };
    const progress = (start: number, end: number) =>
      Math.round(((nowSec - start) / Math.max(1, end - start)) * 10_000) / 100;
    const out: PendingReward[] = [];
    const seen = new Set<string>();
    const add = (r: PendingReward) => {
      const key = `${r.txHash}/${r.rewardType}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(r);
      }
    };
    const activeOf = (nodeId: string) =>
      spellsOf(group, nodeId, nowSec).find(
        (s) => s.subnetId === PRIMARY_NETWORK_SUBNET_ID && s.start <= nowSec && nowSec < s.end,
      );
    for (const nodeId of subjects.nodeIds) {
      const s = activeOf(nodeId);
      if (!s) continue;
      const reward = rewardOf(s);
      add({
        addresses: [s.owner],
        txHash: s.txHash,
        amountStaked: String(s.stake),
        nodeId,
        startTimestamp: s.start,
        endTimestamp: s.end,
        rewardType: 'VALIDATOR',
        progress: progress(s.start, s.end),
        estimatedReward: { ...asset, amount: String(reward.validation) },
      });
      if (reward.delegation > 0n) {
        add({
          addresses: [s.owner],
          txHash: s.txHash,
          amountStaked: String(s.delegations.reduce((sum, d) => sum + d.amount, 0n)),
          nodeId,
          startTimestamp: s.start,
          endTimestamp: s.end,
          rewardType: 'VALIDATOR_FEE',
          progress: progress(s.start, s.end),
          estimatedReward: { ...asset, amount: String(reward.delegation) },
        });
      }
    }
    // An address delegates to one pool node (a draw of its own), when that node is validating.
    for (const address of subjects.addresses) {
      const draw = digest(seed, 'pending-delegation', group, address).readUInt32BE(0);
      const nodeId = deriveNodeId(seed, group, 'pool', draw % VALIDATOR_POOL);
      const s = activeOf(nodeId);
      if (!s) continue;
      const amount = 25n * NANO + BigInt(draw % 50_000) * NANO;
      const gross = (amount * BigInt(s.ratePpm) * BigInt(s.end - s.start)) / (1_000_000n * BigInt(YEAR));
      add({
        addresses: [address],
        txHash: deriveCb58Id(seed, 'address-delegation', group, address, s.index),
        amountStaked: String(amount),
        nodeId,
        startTimestamp: s.start,
        endTimestamp: s.end,
        rewardType: 'DELEGATOR',
        progress: progress(s.start, s.end),
        estimatedReward: { ...asset, amount: String(gross - (gross * BigInt(s.feeBp)) / 10_000n) },
      });
    }
    return out.sort((a, b) => a.endTimestamp - b.endTimestamp || (a.txHash < b.txHash ? -1 : 1));
  }

  return {
    validations,
    delegators,
    pendingRewards,
    pool: (group) => Array.from({ length: VALIDATOR_POOL }, (_, i) => deriveNodeId(seed, group, 'pool', i)),
    rewardOf,
    spells: (group, nodeId) => spellsOf(group, nodeId, Math.floor(deps.now() / 1000)),
  };
}
