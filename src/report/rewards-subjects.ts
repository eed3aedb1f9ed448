import type { RewardsJobConfig } from '../config/index.js';
import { rewardTypes } from '../upstream/enums.js';

/**
 * Whose reward a stored reward is, against the config of today (or the subjects named on the
 * command line): the rewards report's records keep every reward of the subjects, the income views
 * (the tax-tool imports, the summary, json) only the user's own income.
 *
 * - `address`: paid to a configured address: the user's, whatever its type.
 * - `node`: a configured node id's `VALIDATOR` or `VALIDATOR_FEE` reward: the operator's.
 * - `delegator`: any other reward of a configured node id (`DELEGATOR`, or a type the API adds):
 *   paid to the node's delegators, not to the user; an income view leaves it out unless
 *   `--include-delegators` (a staking provider reporting for its delegators).
 * - undefined: neither (a subject no longer configured): left out unless named or `--all-subjects`.
 */
export type RewardOwner = 'address' | 'node' | 'delegator';
export const REWARD_OWNERS = ['address', 'node', 'delegator'] as const satisfies readonly RewardOwner[];

/** The operator's reward types: what a node id's rewards count as the user's income. */
const OPERATOR_TYPES: ReadonlySet<string> = new Set(['VALIDATOR', 'VALIDATOR_FEE']);

export interface Subjects {
  /** Bare addresses whose rewards are the user's. */
  addresses: ReadonlySet<string>;
  /** Node ids whose operator rewards are the user's. */
  nodeIds: ReadonlySet<string>;
  /** Every stored reward is a subject's: one of no configured subject is classified by its type. */
  all: boolean;
}

export function subjectsOf(
  job: Pick<RewardsJobConfig, 'addresses' | 'nodeIds'> | undefined,
  bare: (address: string) => string,
): Subjects {
  return {
    addresses: new Set(job?.addresses.map(bare) ?? []),
    nodeIds: new Set(job?.nodeIds ?? []),
    all: false,
  };
}

/**
 * The reward's owner kind, or undefined when it is no subject's. With `all`, a reward of no
 * configured subject counts as its node's (operator's by type, else a delegator's).
 */
export function ownerOf(
  r: { addresses: readonly string[]; nodeId: string; rewardType: string },
  subjects: Subjects,
): RewardOwner | undefined {
  if (r.addresses.some((a) => subjects.addresses.has(a))) return 'address';
  if (subjects.all || subjects.nodeIds.has(r.nodeId)) {
    return OPERATOR_TYPES.has(r.rewardType) ? 'node' : 'delegator';
  }
  return undefined;
}

/** `--reward-type` values: the API's reward types. */
export const REWARD_TYPE_NAMES: readonly string[] = rewardTypes;

/** The `--reward-type` list as a set, or an error message naming the unknown type and the valid ones. */
export function parseRewardTypes(
  values: readonly string[] | undefined,
): { ok: true; types: ReadonlySet<string> | undefined } | { ok: false; message: string } {
  if (!values?.length) return { ok: true, types: undefined };
  const types = new Set<string>();
  for (const raw of values) {
    const type = raw.trim().toUpperCase();
    if (!REWARD_TYPE_NAMES.includes(type)) {
      return {
        ok: false,
        message: `--reward-type "${raw}": not a reward type; use one or more of ${REWARD_TYPE_NAMES.join(', ')} (comma separated)`,
      };
    }
    types.add(type);
  }
  return { ok: true, types };
}
