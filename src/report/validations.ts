import Big from 'big.js';
import { stringifyCsv } from '../escape/csv-cell.js';
import { excerpt } from '../escape/excerpt.js';
import { forTerminal } from '../escape/terminal.js';
import { isoOfSeconds } from '../runtime/clock.js';
import {
  hasValidations,
  listNodeRewardAmounts,
  listValidationsForReport,
  type ReportedValidation,
  type Store,
} from '../store/index.js';
import { formatTable } from '../terminal/text-table.js';

/**
 * The validations report (`report validations`): one row per Primary Network validation of the
 * stored node ids, its period, stake, the reward the API promised (potentialRewards, last seen while
 * active), the reward it paid (its own `rewards`, and the rewards job's rows of the same staking tx),
 * the delegation fee earned, the realized annual rate and the last uptime seen. Amounts are exact
 * decimals (big.js on the stored nAVAX text); the rate is one quotient of integers, kept to 20 decimal
 * places (half up) and rounded only in the table.
 */

/** Its own Big: the division's precision is this module's, not the process's. */
const B = Big();
B.DP = 20;
// Plain digits, never exponent notation (a rate of 1e-7 is 0.0000001).
B.NE = -30;
B.PE = 30;
const NANO = 1_000_000_000;
/** Characters of stored text a table cell shows at most. */
const TEXT_CELL = 80;
const YEAR_SECONDS = 365 * 86_400;

export interface ValidationReportRow {
  network: string;
  nodeId: string;
  stakingTx: string;
  status: string;
  /** Unix seconds. */
  startTimestamp: number;
  endTimestamp: number;
  /** Length of the period in days, exact; null when a stored time is no number. */
  days: string | null;
  /** AVAX, exact (9 decimals); null where the API says nothing. */
  amountStaked: string | null;
  expectedReward: string | null;
  rewardPaid: string | null;
  /** The rewards job's VALIDATOR rows of the staking tx, summed; null when none is stored. */
  rewardsCollected: string | null;
  delegationFee: string | null;
  /** rewardPaid ÷ stake × 365 days ÷ duration, a fraction (0.07 = 7 %); null until paid. */
  realizedAnnualRate: string | null;
  /** Last uptimePerformance seen, a percentage. */
  uptime: number | null;
}

export interface ValidationsReport {
  /** False: no validation is stored at all (the validators job never ran). */
  stored: boolean;
  rows: ValidationReportRow[];
}

export async function buildValidationsReport(
  store: Store,
  request: { network?: string | undefined; nodeIds: readonly string[]; fromMs?: number; toMs?: number },
): Promise<ValidationsReport> {
  if (!(await hasValidations(store))) return { stored: false, rows: [] };
  const validations = await listValidationsForReport(store, {
    network: request.network,
    nodeIds: request.nodeIds,
    ...(request.fromMs !== undefined && { fromSeconds: request.fromMs / 1000 }),
    // --to names a day: up to its end.
    ...(request.toMs !== undefined && { toSeconds: request.toMs / 1000 + 86_400 }),
  });
  const collected = new Map<string, bigint>();
  for (const key of new Set(validations.map((v) => `${v.network}\n${v.nodeId}`))) {
    const [network, nodeId] = key.split('\n') as [string, string];
    for (const r of await listNodeRewardAmounts(store, network, nodeId)) {
      const k = `${network}\n${r.txHash}\n${r.rewardType}`;
      const amount = integer(r.amount);
      if (amount !== null) collected.set(k, (collected.get(k) ?? 0n) + amount);
    }
  }
  return { stored: true, rows: validations.map((v) => rowOf(v, collected)) };
}

/** Stored nAVAX text as an integer, or null for text that is none (a hostile or older store). */
function integer(text: string | null): bigint | null {
  return text !== null && /^\d+$/.test(text) ? BigInt(text) : null;
}

const avax = (nano: bigint | null) => (nano === null ? null : new B(nano.toString()).div(NANO).toFixed(9));

function rowOf(v: ReportedValidation, collected: Map<string, bigint>): ValidationReportRow {
  const seconds = Number(v.endTimestamp) - Number(v.startTimestamp);
  const stake = integer(v.amountStaked);
  const paid = v.status === 'completed' ? integer(v.validationReward) : null;
  const stored = collected.get(`${v.network}\n${v.txHash}\nVALIDATOR`) ?? null;
  const fee =
    v.status === 'completed'
      ? (integer(v.delegationReward) ?? collected.get(`${v.network}\n${v.txHash}\nVALIDATOR_FEE`) ?? null)
      : null;
  const rate =
    paid !== null && stake !== null && stake > 0n && seconds > 0
      ? new B((paid * BigInt(YEAR_SECONDS)).toString()).div((stake * BigInt(seconds)).toString()).toString()
      : null;
  return {
    network: v.network,
    nodeId: v.nodeId,
    stakingTx: v.txHash,
    status: v.status,
    startTimestamp: v.startTimestamp,
    endTimestamp: v.endTimestamp,
    days: Number.isFinite(seconds) ? new B(seconds).div(86_400).toString() : null,
    amountStaked: avax(stake),
    expectedReward: avax(integer(v.potentialValidationReward)),
    rewardPaid: avax(paid),
    rewardsCollected: avax(stored),
    delegationFee: avax(fee),
    realizedAnnualRate: rate,
    uptime: v.uptimePerformance === null ? null : Number(v.uptimePerformance),
  };
}

export const VALIDATIONS_CSV_HEADER = [
  'network',
  'node_id',
  'staking_tx',
  'status',
  'start',
  'end',
  'days',
  'amount_staked_avax',
  'expected_reward_avax',
  'reward_paid_avax',
  'rewards_collected_avax',
  'delegation_fee_avax',
  'realized_annual_rate',
  'uptime_percent',
] as const;

/** A stored time no date holds (a hostile or older store) is shown as such: `invalid: <value>`. */
const iso = (seconds: number) => isoOfSeconds(seconds).replace('.000Z', 'Z');
/** The day of a time, or the `invalid: …` text whole. */
const day = (seconds: number) => {
  const t = iso(seconds);
  return t.startsWith('invalid: ') ? t : t.slice(0, 10);
};
const cell = (v: string | number | null) => (v === null ? '' : String(v));

/** Stored text in a CSV cell: its control characters shown (`\x1b`), never passed to a viewer. */
function csvCells(r: ValidationReportRow): string[] {
  return [
    forTerminal(r.network),
    forTerminal(r.nodeId),
    forTerminal(r.stakingTx),
    forTerminal(r.status),
    iso(r.startTimestamp),
    iso(r.endTimestamp),
    cell(r.days),
    cell(r.amountStaked),
    cell(r.expectedReward),
    cell(r.rewardPaid),
    cell(r.rewardsCollected),
    cell(r.delegationFee),
    cell(r.realizedAnnualRate),
    cell(r.uptime),
  ];
}

/** CSV, every cell escaped for a spreadsheet; an empty file when no validation is stored at all. */
export function formatValidationsCsv(report: ValidationsReport): string {
  if (!report.stored) return '';
  return stringifyCsv([[...VALIDATIONS_CSV_HEADER], ...report.rows.map(csvCells)]);
}

/** The rows for a terminal: amounts to 4 decimals, the rate as a percentage to 2 (rounded half up). */
export function formatValidationsTable(report: ValidationsReport): string {
  if (!report.stored) return '';
  const round = (v: string | null, dp: number) => (v === null ? '' : new B(v).toFixed(dp));
  // Stored text in a terminal is cut (a real node id or hash is some 50 characters) and escaped.
  const lines = report.rows.map((r) => [
    excerpt(r.nodeId, TEXT_CELL),
    excerpt(r.stakingTx, TEXT_CELL),
    excerpt(r.status, TEXT_CELL),
    day(r.startTimestamp),
    day(r.endTimestamp),
    round(r.days, 1),
    round(r.amountStaked, 4),
    round(r.expectedReward, 4),
    round(r.rewardPaid, 4),
    round(r.delegationFee, 4),
    r.realizedAnnualRate === null ? '' : `${new B(r.realizedAnnualRate).times(100).toFixed(2)} %`,
    r.uptime === null ? '' : `${r.uptime.toFixed(2)} %`,
  ]);
  const header = [
    'node id',
    'staking tx',
    'status',
    'start',
    'end',
    'days',
    'staked',
    'expected',
    'paid',
    'fee',
    'rate',
    'uptime',
  ];
  return `${formatTable(header, lines, { right: [5, 6, 7, 8, 9, 10, 11] })}\n`;
}

export function formatValidationsJson(report: ValidationsReport): string {
  return `${JSON.stringify({ validations: report.rows }, null, 2)}\n`;
}

/** The one line said when nothing is stored, or nothing matched. */
export function describeEmpty(report: ValidationsReport): string | undefined {
  if (!report.stored)
    return 'no validation stored: add jobs.validators to the config and run the validators job (run validators)';
  if (report.rows.length === 0) return 'no stored validation matches these node ids and dates';
  return undefined;
}
