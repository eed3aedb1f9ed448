import type { Config } from '../../config/index.js';
import {
  listValidatorSummaries,
  type Store,
  type ValidatorSummaryRow,
  validatorSummariesFingerprint,
} from '../../store/index.js';
import { canonicalNetwork } from '../../upstream/index.js';
import { OTHER } from '../cap.js';
import { addUnits, storedUnits, storedUnitsToNumber } from '../decimal.js';
import type { Scrape } from '../scrape.js';

/** Stakes and rewards are nAVAX. */
const AVAX_DECIMALS = 9;
const LABELS = ['network', 'node_id'] as const;
const KINDS = ['validation', 'delegation'] as const;

/** One row per node id and reward kind: the cap keeps whole node ids and folds the rest per kind. */
interface Row {
  nodeId: string;
  kind: (typeof KINDS)[number];
  summary: ValidatorSummaryRow;
  /** Additive amounts (nAVAX), summed into "other" with the node ids over the cap. */
  potential: bigint | number | null;
  delegated: bigint | number | null;
  capacity: bigint | number | null;
  pending: bigint | number | null;
  delegators: number | null;
  unrewarded: number;
  active: number;
  rank: number;
}

/**
 * The configured node ids' validations, from validator_summaries (recomputed by each validators run):
 * active or not, end, uptime, health, potential and pending rewards, delegations, and the completed
 * validations that paid no reward. Node ids in config order keep their own series under the cap; the
 * others are summed into `node_id="other"` where a sum means something (counts and amounts).
 */
export function defineValidatorsCollector(scrape: Scrape, store: Store, config: Config): void {
  const job = config.jobs.validators;
  const network = job && canonicalNetwork(job.network ?? 'mainnet');
  const rank = new Map((job?.nodeIds ?? []).map((id, i) => [id, i]));
  scrape.define({
    name: 'validators',
    families: {
      known: {
        name: 'glacier_validator_known',
        help: 'Per configured node id: 1 when the API knows it, 0 when it answered 404 or no validation at all.',
        labelNames: LABELS,
      },
      active: {
        name: 'glacier_validator_active',
        help: '1 while a Primary Network validation of the node id is active, else 0.',
        labelNames: LABELS,
      },
      autoRenewing: {
        name: 'glacier_validator_auto_renewing',
        help: '1 when the active validation renews itself (auto-renewed staking, not exiting): it is not ending.',
        labelNames: LABELS,
      },
      end: {
        name: 'glacier_validator_end_timestamp_seconds',
        help: 'End of the active Primary Network validation, else of the newest one, Unix seconds.',
        labelNames: LABELS,
      },
      period: {
        name: 'glacier_validator_period_seconds',
        help: 'Length of that validation (its staking period), seconds.',
        labelNames: LABELS,
      },
      uptime: {
        name: 'glacier_validator_uptime_ratio',
        help: 'Uptime of the active validation as the API reports it (uptimePerformance / 100), 0..1.',
        labelNames: LABELS,
      },
      reachability: {
        name: 'glacier_validator_reachability_ratio',
        help: 'Health of the active validation: validatorHealth.reachabilityPercent / 100, 0..1.',
        labelNames: LABELS,
      },
      potential: {
        name: 'glacier_validator_potential_reward_avax',
        help: 'Reward the active validation will pay if it keeps its uptime, per kind (validation, delegation), in AVAX.',
        labelNames: [...LABELS, 'kind'],
      },
      delegators: {
        name: 'glacier_validator_delegators',
        help: 'Delegators of the active validation.',
        labelNames: LABELS,
      },
      delegated: {
        name: 'glacier_validator_delegated_avax',
        help: 'AVAX delegated to the active validation.',
        labelNames: LABELS,
      },
      capacity: {
        name: 'glacier_validator_delegation_capacity_avax',
        help: 'AVAX that can still be delegated to the active validation (delegationCapacity).',
        labelNames: LABELS,
      },
      unrewarded: {
        name: 'glacier_validator_unrewarded_validations',
        help: 'Completed Primary Network validations of the node id that paid no validation reward.',
        labelNames: LABELS,
      },
      pending: {
        name: 'glacier_validator_pending_reward_avax',
        help: "Sum of the node id's pending rewards (rewards:listPending estimatedReward), in AVAX.",
        labelNames: LABELS,
      },
    },
    // The summaries change once a validators run (every 15 minutes by default), scrapes come every
    // few seconds: 500 node ids are some 3,500 series to derive, read again only when they changed.
    fingerprint: () => (job ? validatorSummariesFingerprint(store) : ''),
    async read(g, cap) {
      if (!job || !network) return;
      const summaries = await listValidatorSummaries(store);
      const rows: Row[] = [];
      for (const s of summaries) {
        const i = rank.get(s.nodeId);
        if (s.network !== network || i === undefined) continue;
        for (const kind of KINDS) rows.push(rowOf(s, kind, i));
      }
      rows.sort((a, b) => a.rank - b.rank);
      const kept = cap('glacier_validator_active', 'node ids', rows, {
        unitOf: (r) => r.nodeId,
        foldKeyOf: (r) => r.kind,
        fold: (into, r) => (into ? combine(into, r) : { ...r, nodeId: OTHER }),
      });
      const avax = (units: bigint | number) => storedUnitsToNumber(units, AVAX_DECIMALS);
      for (const r of kept) {
        const labels = { network, node_id: r.nodeId };
        if (r.potential !== null) g.potential.set({ ...labels, kind: r.kind }, avax(r.potential));
        if (r.kind !== 'validation') continue;
        // Per node id: the additive ones for "other" too; the others only for a node id of its own.
        g.active.set(labels, r.active);
        g.unrewarded.set(labels, r.unrewarded);
        if (r.delegators !== null) g.delegators.set(labels, r.delegators);
        if (r.delegated !== null) g.delegated.set(labels, avax(r.delegated));
        if (r.capacity !== null) g.capacity.set(labels, avax(r.capacity));
        if (r.pending !== null) g.pending.set(labels, avax(r.pending));
        if (r.nodeId === OTHER) continue;
        const s = r.summary;
        g.known.set(labels, s.known);
        g.autoRenewing.set(labels, s.autoRenewing);
        const end = finite(s.endTimestamp);
        const period = finite(s.periodSeconds);
        const uptime = finite(s.uptimeRatio);
        const reachability = finite(s.reachabilityRatio);
        if (end !== null) g.end.set(labels, end);
        if (period !== null) g.period.set(labels, period);
        if (uptime !== null) g.uptime.set(labels, uptime);
        if (reachability !== null) g.reachability.set(labels, reachability);
      }
    },
  });
}

/**
 * A stored amount (nAVAX text), or null for none and for text that is no number (a hostile or older
 * store): such a figure has no series, as the other collectors do, rather than a NaN sample.
 */
function units(text: string | null): bigint | number | null {
  if (text === null) return null;
  const u = storedUnits(text);
  return typeof u === 'bigint' || Number.isFinite(u) ? u : null;
}

/** A stored number, or null for none and for what is no finite number. */
function finite(value: number | string | null): number | null {
  const n = value === null ? Number.NaN : Number(value);
  return Number.isFinite(n) ? n : null;
}

function rowOf(s: ValidatorSummaryRow, kind: Row['kind'], rank: number): Row {
  return {
    nodeId: s.nodeId,
    kind,
    summary: s,
    potential: units(kind === 'validation' ? s.potentialValidationReward : s.potentialDelegationReward),
    delegated: units(s.amountDelegated),
    capacity: units(s.delegationCapacity),
    pending: units(s.pendingReward),
    delegators: finite(s.delegators),
    unrewarded: Number(s.unrewarded),
    active: Number(s.active),
    rank,
  };
}

/** A node id over the cap added into the "other" row of its kind. */
function combine(into: Row, r: Row): Row {
  const add = (a: bigint | number | null, b: bigint | number | null) =>
    a === null ? b : b === null ? a : addUnits(a, b);
  return {
    ...into,
    potential: add(into.potential, r.potential),
    delegated: add(into.delegated, r.delegated),
    capacity: add(into.capacity, r.capacity),
    pending: add(into.pending, r.pending),
    delegators: into.delegators === null ? r.delegators : into.delegators + (r.delegators ?? 0),
    unrewarded: into.unrewarded + r.unrewarded,
    active: into.active + r.active,
  };
}
