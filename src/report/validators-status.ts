/**
 * `status`'s validators part: per configured node id of `jobs.validators`, its validation now (from
 * validator_summaries, as /metrics shows it), and the node ids the API does not know, named.
 */
import Big from 'big.js';
import type { Config } from '../config/index.js';
import { forTerminal } from '../escape/terminal.js';
import { isoOfSeconds } from '../runtime/clock.js';
import { listValidatorSummaries, type Store } from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';
import { canonicalNetwork } from '../upstream/endpoints.js';

/** Node ids listed one a line; past it, a count (500 node ids fit in the metrics, not in a terminal). */
const LISTED = 20;

export interface ValidatorNodeStatus {
  nodeId: string;
  active: boolean;
  autoRenewing: boolean;
  /** Unix seconds: end of the active validation, else of the newest one. */
  endTimestamp: number | null;
  /** 0..1. */
  uptimeRatio: number | null;
  /** AVAX, exact: the validation reward the active validation will pay if its uptime holds. */
  potentialReward: string | null;
  unrewarded: number;
}

export interface ValidatorsStatus {
  network: string;
  nodes: ValidatorNodeStatus[];
  /** Node ids the API answered 404 or no validation for: named in status (the others went on). */
  unknown: string[];
  /** Configured node ids no validators run has read yet. */
  notRead: string[];
}

export async function collectValidatorsStatus(
  config: Config,
  store: Store | undefined,
): Promise<ValidatorsStatus | undefined> {
  const job = config.jobs.validators;
  if (!job) return undefined;
  const network = canonicalNetwork(job.network ?? 'mainnet');
  const nodeIds = job.nodeIds ?? [];
  // A database an older version made (not migrated yet) has no validator_summaries: nothing read.
  const stored = store ? await listValidatorSummaries(store).catch(() => []) : [];
  const summaries = new Map(stored.filter((s) => s.network === network).map((s) => [s.nodeId, s]));
  const status: ValidatorsStatus = { network, nodes: [], unknown: [], notRead: [] };
  for (const nodeId of nodeIds) {
    const s = summaries.get(nodeId);
    if (!s) status.notRead.push(nodeId);
    else if (Number(s.known) === 0) status.unknown.push(nodeId);
    else
      status.nodes.push({
        nodeId,
        active: Number(s.active) === 1,
        autoRenewing: Number(s.autoRenewing) === 1,
        endTimestamp: s.endTimestamp === null ? null : Number(s.endTimestamp),
        uptimeRatio: s.uptimeRatio === null ? null : Number(s.uptimeRatio),
        potentialReward:
          s.potentialValidationReward !== null && /^\d+$/.test(s.potentialValidationReward)
            ? new Big(s.potentialValidationReward).div(1e9).toFixed(9)
            : null,
        unrewarded: Number(s.unrewarded),
      });
  }
  return status;
}

/** The terminal lines: a table of the first node ids, then the unknown ones named. */
export function formatValidatorsStatus(s: ValidatorsStatus, now: Date): string[] {
  const nowSeconds = now.getTime() / 1000;
  const rows = s.nodes.slice(0, LISTED).map((n) => {
    // A stored end no date holds (a hostile or older store) is shown as such, with no time left.
    const end = n.endTimestamp === null ? '' : isoOfSeconds(n.endTimestamp);
    const dated = end !== '' && !end.startsWith('invalid: ');
    return [
      n.nodeId,
      n.active ? (n.autoRenewing ? 'active, renews itself' : 'active') : 'not active',
      dated ? end.slice(0, 16).replace('T', ' ') : end,
      dated ? `${((n.endTimestamp! - nowSeconds) / 86_400).toFixed(1)} d` : '',
      n.uptimeRatio === null ? '' : `${(n.uptimeRatio * 100).toFixed(2)} %`,
      n.potentialReward === null ? '' : new Big(n.potentialReward).toFixed(4),
      String(n.unrewarded),
    ];
  });
  const out = [
    `validators on ${s.network}: ${s.nodes.length} known, ${s.unknown.length} unknown to the API, ${s.notRead.length} not read yet`,
  ];
  if (rows.length > 0) {
    out.push(
      ...formatTable(
        ['node id', 'validation', 'ends (UTC)', 'left', 'uptime', 'expected AVAX', 'unrewarded'],
        rows,
        {
          right: [3, 4, 5, 6],
        },
      )
        .split('\n')
        .map((l) => `  ${l}`),
    );
    if (s.nodes.length > LISTED)
      out.push(`  … and ${s.nodes.length - LISTED} more (glacier_validator_* in /metrics)`);
  }
  for (const nodeId of s.unknown.slice(0, LISTED))
    out.push(`  ${forTerminal(nodeId)}: unknown to the API (404 or no validation): check the node id`);
  if (s.unknown.length > LISTED) out.push(`  … and ${s.unknown.length - LISTED} more unknown node ids`);
  return out;
}
