/**
 * Historical staking rewards. Every well-formed address or node id (a "subject") has its own
 * deterministic schedule of staking periods, derived from a hash of (seed, network, subject): one
 * period ends every 2 to 9 days, starting about two years before the simulator's epoch, and a reward
 * exists once its period has ended (endTimestamp <= now), so new rewards keep appearing.
 *
 * A page enumerates only the cheap schedule (a few draws per period), sorts it, and builds the full
 * reward objects (hashes, cb58 ids) for the returned page alone.
 */
import type { Currency } from '../../upstream/endpoints.js';
import { deriveBech32Address, deriveCb58Id, deriveNodeId, digest, hash32, mulberry32 } from '../ids.js';
import type { HistoricalReward, RewardType } from '../types.js';
import type { NetworkGroup } from '../validation.js';
import { type AutoRenewedRewardRow, autoRenewedPositions, autoRenewedRewards } from './auto-renewed.js';
import { avaxPrice } from './prices.js';

export interface RewardSubject {
  kind: 'address' | 'node';
  /** Bare lower-case address (`avax1...`) or node id (`NodeID-...`). */
  id: string;
}

/** Sort key and keyset position of one reward output: (endTimestamp, subject ordinal, period, output index). */
export type RewardKey = readonly [end: number, ord: number, k: number, out: number];

export function isRewardKey(value: unknown): value is RewardKey {
  return Array.isArray(value) && value.length === 4 && value.every(Number.isSafeInteger);
}

interface Period {
  k: number;
  start: number;
  end: number;
  roleDraw: number;
  stakeDraw: number;
  rateDraw: number;
  feeDraw: number;
  nodeDraw: number;
}

interface RewardRef {
  key: RewardKey;
  subject: RewardSubject;
  period: Period;
  type: RewardType;
  /** A withdrawn part of an auto-renewed cycle (auto-renewed.ts) instead of a period's output. */
  auto?: AutoRenewedRewardRow;
}

/** Period numbers of auto-renewed rows in the sort key: above any fixed period's. */
const AUTO_RENEWED_K = 1_000_000;

const DAY = 86_400;
const HISTORY_DAYS = 730;
const VALIDATOR_POOL = 200;

export const avaxAssetId: Readonly<Record<NetworkGroup, string>> = {
  mainnet: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
  testnet: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK',
};

const hrpOf = (group: NetworkGroup): string => (group === 'mainnet' ? 'avax' : 'fuji');

export interface RewardQuery {
  group: NetworkGroup;
  /** Distinct subjects in a stable order (the ordinal is part of the sort key). */
  subjects: readonly RewardSubject[];
  sortOrder: 'asc' | 'desc';
}

export interface RewardPage {
  items: HistoricalReward[];
  /** Position of the last item when more follow. */
  next: RewardKey | undefined;
}

export interface RewardSource {
  page(query: RewardQuery, after: RewardKey | undefined, limit: number, currency: Currency): RewardPage;
  /** Every reward existing now for the query, in its sort order. */
  all(query: RewardQuery, currency: Currency): HistoricalReward[];
}

export interface RewardSourceDeps {
  seed: number;
  now: () => number;
  epochMs: number;
}

export function createRewardSource(deps: RewardSourceDeps): RewardSource {
  const { seed } = deps;
  const historyStart = Math.floor(deps.epochMs / 1000 / DAY) * DAY - HISTORY_DAYS * DAY;

  function schedule(group: NetworkGroup, subject: RewardSubject, nowSec: number): Period[] {
    const rng = mulberry32(digest(seed, 'rewards', group, subject.id).readUInt32BE(0));
    const periods: Period[] = [];
    let end = historyStart;
    for (let k = 0; ; k++) {
      // Seven draws per period, always, so period k never depends on the branches of earlier ones.
      end += Math.floor((2 + rng() * 7) * DAY);
      const start = end - Math.floor((14 + rng() * 351) * DAY);
      const [roleDraw, stakeDraw, rateDraw, feeDraw, nodeDraw] = [rng(), rng(), rng(), rng(), rng()];
      if (end > nowSec) return periods;
      periods.push({ k, start, end, roleDraw, stakeDraw, rateDraw, feeDraw, nodeDraw });
    }
  }

  function outputsOf(subject: RewardSubject, p: Period): Array<[RewardType, number]> {
    if (subject.kind === 'node') {
      // A validator's own period pays one output; a delegation to it pays the delegator and the fee.
      return p.roleDraw < 0.35
        ? [['VALIDATOR', 0]]
        : [
            ['DELEGATOR', 0],
            ['VALIDATOR_FEE', 1],
          ];
    }
    if (p.roleDraw < 0.75) return [['DELEGATOR', 0]];
    if (p.roleDraw < 0.9) return [['VALIDATOR', 0]];
    return [['VALIDATOR_FEE', 1]];
  }

  function refs(query: RewardQuery): RewardRef[] {
    const nowSec = Math.floor(deps.now() / 1000);
    const out: RewardRef[] = [];
    query.subjects.forEach((subject, ord) => {
      for (const period of schedule(query.group, subject, nowSec)) {
        for (const [type, index] of outputsOf(subject, period)) {
          out.push({ key: [period.end, ord, period.k, index], subject, period, type });
        }
      }
      if (subject.kind === 'node') {
        const positions = autoRenewedPositions(seed, query.group, subject.id, nowSec, deps.epochMs / 1000);
        autoRenewedRewards(positions).forEach((auto, i) => {
          const period = {
            k: AUTO_RENEWED_K + i,
            start: auto.startTimestamp,
            end: auto.endTimestamp,
          } as Period;
          out.push({
            key: [auto.endTimestamp, ord, AUTO_RENEWED_K + i, auto.outputIndex],
            subject,
            period,
            type: auto.rewardType,
            auto,
          });
        });
      }
    });
    const sign = query.sortOrder === 'asc' ? 1 : -1;
    out.sort((a, b) => sign * compareKeys(a.key, b.key));
    return out;
  }

  function build(group: NetworkGroup, ref: RewardRef, currency: Currency, nowSec: number): HistoricalReward {
    if (ref.auto) {
      const { amount, ...rest } = ref.auto;
      const reward: HistoricalReward = {
        ...rest,
        addresses: [...rest.addresses],
        reward: {
          assetId: avaxAssetId[group],
          name: 'Avalanche',
          symbol: 'AVAX',
          denomination: 9,
          type: 'secp256k1',
          amount,
        },
      };
      if (rest.endTimestamp <= nowSec - DAY) {
        reward.reward.historicalPrice = {
          currencyCode: currency,
          value: avaxPrice(seed, rest.endTimestamp, currency),
        };
      }
      return reward;
    }
    const { subject, period: p, type } = ref;
    // The fee output belongs to a delegation, so it is sized by the delegator's stake.
    const isValidation = type === 'VALIDATOR';
    const stakeAvax = isValidation
      ? 2_000 + Math.floor(p.stakeDraw * 2_998_000)
      : 25 + Math.floor(p.stakeDraw * 49_975);
    const stakedNano = stakeAvax * 1_000_000_000 + (hash32(seed, p.k, p.end) % 1_000_000_000);
    const total = (stakedNano * (0.06 + p.rateDraw * 0.02) * (p.end - p.start)) / (365 * DAY);
    const feeShare = 0.02 + p.feeDraw * 0.08;
    const amount =
      type === 'VALIDATOR' ? total : type === 'DELEGATOR' ? total * (1 - feeShare) : total * feeShare;
    const hrp = hrpOf(group);
    const ownNode = subject.kind === 'node' ? subject.id : deriveNodeId(seed, group, subject.id);
    const poolNode = deriveNodeId(seed, group, 'pool', Math.floor(p.nodeDraw * VALIDATOR_POOL));
    let nodeId: string;
    let addresses: string[];
    if (subject.kind === 'address') {
      nodeId = type === 'DELEGATOR' ? poolNode : ownNode;
      addresses = [subject.id];
    } else {
      nodeId = subject.id;
      addresses =
        type === 'DELEGATOR'
          ? [deriveBech32Address(hrp, seed, 'delegator', subject.id, p.k)]
          : [deriveBech32Address(hrp, seed, 'owner', subject.id)];
    }
    const reward: HistoricalReward = {
      addresses,
      txHash: deriveCb58Id(seed, 'stake', group, subject.id, p.k),
      amountStaked: String(stakedNano),
      nodeId,
      startTimestamp: p.start,
      endTimestamp: p.end,
      rewardType: type,
      utxoId: deriveCb58Id(seed, 'utxo', group, subject.id, p.k, ref.key[3]),
      outputIndex: ref.key[3],
      reward: {
        assetId: avaxAssetId[group],
        name: 'Avalanche',
        symbol: 'AVAX',
        denomination: 9,
        type: 'secp256k1',
        amount: String(Math.max(1, Math.floor(amount))),
      },
      rewardTxHash: deriveCb58Id(seed, 'reward', group, subject.id, p.k),
    };
    // Fuji runs Helicon (ACP-236): its API sends the SDK's next stakingType; Mainnet's sends none yet.
    if (group === 'testnet') reward.stakingType = 'fixed';
    // Prices are only known for rewards older than 24 hours (README.md, rewards).
    if (p.end <= nowSec - DAY) {
      reward.reward.historicalPrice = { currencyCode: currency, value: avaxPrice(seed, p.end, currency) };
    }
    return reward;
  }

  return {
    page(query, after, limit, currency) {
      const nowSec = Math.floor(deps.now() / 1000);
      const sorted = refs(query);
      const sign = query.sortOrder === 'asc' ? 1 : -1;
      let from = 0;
      if (after) {
        // Binary search for the first key strictly after the position in this order.
        let lo = 0;
        let hi = sorted.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          const ref = sorted[mid] as RewardRef;
          if (sign * compareKeys(ref.key, after) <= 0) lo = mid + 1;
          else hi = mid;
        }
        from = lo;
      }
      const slice = sorted.slice(from, from + limit);
      const last = slice[slice.length - 1];
      const more = from + limit < sorted.length;
      return {
        items: slice.map((ref) => build(query.group, ref, currency, nowSec)),
        next: more && last ? last.key : undefined,
      };
    },
    all(query, currency) {
      const nowSec = Math.floor(deps.now() / 1000);
      return refs(query).map((ref) => build(query.group, ref, currency, nowSec));
    },
  };
}

export function compareKeys(a: RewardKey, b: RewardKey): number {
  for (let i = 0; i < 4; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}
