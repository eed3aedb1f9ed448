import type { Config } from '../../config/index.js';
import { JOB_NAMES } from '../../kernel/job-names.js';
import {
  type RewardSubjectKind,
  readCursor,
  readRewardTotals,
  reconcileCycles,
  type Store,
} from '../../store/index.js';
import { backfillComplete, type NewestFirstCursor } from '../../sync/newest-first.js';
import { rewardStreams } from '../../sync/reward-streams.js';
import { bareAddress, canonicalNetwork } from '../../upstream/index.js';
import { mergeSameLabels, OTHER } from '../cap.js';
import { addUnits, storedUnits, storedUnitsToNumber } from '../decimal.js';
import type { Scrape } from '../scrape.js';

/** AVAX rewards are paid in nAVAX. */
const AVAX_DECIMALS = 9;

interface Series {
  kind: RewardSubjectKind;
  subject: string;
  rewardType: string;
  rewards: number;
  /** nAVAX: exact, or a float when the stored sum is one (storedUnits). */
  amount: bigint | number;
  /** In the configured currency: rewards priced in another one are not in it. */
  value: number;
  newestEndTimestamp: number;
  /** Position of the subject in the config: the priority under the cap. */
  rank: number;
}

const LABELS = ['network', 'kind', 'subject', 'reward_type'] as const;

/**
 * Rewards per configured address and node id (the subjects, in config order: the first ones keep
 * their own series under the cap) and reward type, from reward_summaries.
 */
export function defineRewardsCollector(scrape: Scrape, store: Store, config: Config): void {
  const job = config.jobs.rewards;
  // The config is fixed for the life of the process: the subjects and their priority too.
  const network = job && canonicalNetwork(job.network);
  const subjects = job
    ? [
        ...[...new Set(job.addresses.map(bareAddress))].map((s) => ({
          kind: 'address' as const,
          subject: s,
        })),
        ...[...new Set(job.nodeIds)].map((s) => ({ kind: 'node_id' as const, subject: s })),
      ]
    : [];
  const rank = new Map(subjects.map((s, i) => [`${s.kind}\n${s.subject}`, i]));
  scrape.define({
    name: 'rewards',
    families: {
      avax: {
        name: 'glacier_rewards_received_avax',
        help: 'Rewards received, per configured address or node id and reward type, in AVAX.',
        labelNames: LABELS,
      },
      value: {
        name: 'glacier_rewards_received_value',
        help: 'Value of the rewards received at their historical price, in the currency of the label; rewards not priced yet count 0.',
        labelNames: [...LABELS, 'currency'],
      },
      count: {
        name: 'glacier_rewards_received',
        help: 'Number of rewards received, per configured address or node id and reward type.',
        labelNames: LABELS,
      },
      newest: {
        name: 'glacier_rewards_newest_end_timestamp_seconds',
        help: 'End time of the newest reward, per configured address or node id and reward type, Unix seconds.',
        labelNames: LABELS,
      },
      backfill: {
        name: 'glacier_rewards_backfill_complete',
        help: "1 once a rewards batch's first backfill has read its whole history, else 0; per batch of the config (kind, 1-based batch).",
        labelNames: ['network', 'kind', 'batch'],
      },
      unreconciled: {
        name: 'glacier_rewards_compounded_unreconciled_avax',
        help: "Per node id with auto-renewed validations: the sum over its positions of |compounded in the stored cycles - the validator's autoRenew accrued rewards|, in AVAX; 0 when they agree.",
        labelNames: ['network', 'node_id'],
      },
    },
    async read(g, cap, label) {
      if (!job || !network) return;
      // One series per batch of the config: as many as its addresses and node ids make (85 a batch).
      for (const [i, stream] of rewardStreams(job).entries()) {
        const cursor = await readCursor<NewestFirstCursor>(store, JOB_NAMES.rewards, stream.scope);
        g.backfill.set(
          { network, kind: stream.kind === 'addresses' ? 'addresses' : 'node_ids', batch: String(i + 1) },
          backfillComplete(cursor) ? 1 : 0,
        );
      }
      // The collector's cycles against what the validator objects say was restaked (ACP-236).
      const differences = new Map<string, bigint>();
      for (const r of await reconcileCycles(store)) {
        if (r.network !== network) continue;
        const nodeId = label('glacier_rewards_compounded_unreconciled_avax', r.nodeId);
        const abs = r.difference < 0n ? -r.difference : r.difference;
        differences.set(nodeId, (differences.get(nodeId) ?? 0n) + abs);
      }
      for (const [nodeId, nano] of differences) {
        g.unreconciled.set({ network, node_id: nodeId }, storedUnitsToNumber(nano, AVAX_DECIMALS));
      }
      const totals = await readRewardTotals(store, network, job.currency, subjects);
      const series: Series[] = totals.map((t) => ({
        kind: t.subjectKind,
        subject: t.subject,
        // A reward type is upstream text: checked before it becomes a label.
        rewardType: label('glacier_rewards_received_avax', t.rewardType),
        rewards: Number(t.rewards),
        // Whatever the summary holds (a sum past int64 is a float in SQLite): never a throw.
        amount: storedUnits(t.amount),
        value: Number(t.value),
        newestEndTimestamp: Number(t.newestEndTimestamp),
        rank: rank.get(`${t.subjectKind}\n${t.subject}`) ?? subjects.length,
      }));
      const merged = mergeSameLabels(series, (s) => `${s.kind}\n${s.subject}\n${s.rewardType}`, combine);
      merged.sort((a, b) => a.rank - b.rank);
      const kept = cap('glacier_rewards_received_avax', 'addresses and node ids', merged, {
        unitOf: (s) => `${s.kind}\n${s.subject}`,
        foldKeyOf: (s) => `${s.kind}\n${s.rewardType}`,
        fold: (into, s) => combine(into, { ...s, subject: OTHER }),
      });
      for (const s of kept) {
        const labels = { network, kind: s.kind, subject: s.subject, reward_type: s.rewardType };
        const avax = storedUnitsToNumber(s.amount, AVAX_DECIMALS);
        // A stored sum that is no number exposes no amount rather than failing the scrape.
        if (Number.isFinite(avax)) g.avax.set(labels, avax);
        g.value.set({ ...labels, currency: job.currency }, s.value);
        g.count.set(labels, s.rewards);
        g.newest.set(labels, s.newestEndTimestamp);
      }
    },
  });
}

/** Two rows of one series added up (subjects over the cap, or invalid reward types). */
function combine(into: Series | undefined, s: Series): Series {
  return {
    ...s,
    rewards: (into?.rewards ?? 0) + s.rewards,
    amount: addUnits(into?.amount ?? 0n, s.amount),
    value: (into?.value ?? 0) + s.value,
    newestEndTimestamp: Math.max(into?.newestEndTimestamp ?? 0, s.newestEndTimestamp),
  };
}
