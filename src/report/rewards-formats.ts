import { stringifyCsv } from '../escape/csv-cell.js';
import { formatTable } from '../terminal/text-table.js';
// Types only: the command reads the format list at start-up without loading the store.
import type { RewardsReport, RewardsReportRow, RewardsTotals } from './rewards.js';
import { ROW_KIND_LABELS } from './rewards-compounded.js';
import type { RewardsFormatName } from './rewards-format-names.js';

/**
 * The output formats of `report rewards`, one entry each: adding a tax tool is one entry here, its
 * name and `--help` line in rewards-format-names.ts (and its line in docs/cli.md). `csv` and `table` are the report itself; the others are the custom CSV
 * imports of tax tools, where each reward is one income row at its end time (UTC) and a pending
 * reward (no price yet) is left out, so that nobody imports it at a value of zero.
 */

export const REWARDS_CSV_HEADER = [
  'date',
  'address',
  'node_id',
  'reward_type',
  'amount_avax',
  'price',
  'currency',
  'value',
  'owner',
  'staking_type',
  'kind',
] as const;

/** A row's cells in header order; a missing price or value is an empty cell, never 0. */
function cells(r: RewardsReportRow): string[] {
  return [
    r.date,
    r.address,
    r.nodeId,
    r.rewardType,
    r.amount,
    r.price ?? '',
    r.currency,
    r.value ?? '',
    r.owner,
    r.stakingType,
    ROW_KIND_LABELS[r.kind],
  ];
}

/** CSV: the header and one line per reward; no totals (a spreadsheet sums them). */
export function formatRewardsCsv(report: RewardsReport): string {
  return stringifyCsv([[...REWARDS_CSV_HEADER], ...report.rows.map(cells)]);
}

/** The table: rows, a subtotal after each month, and the grand total. */
export function formatRewardsTable(report: RewardsReport): string {
  const lines: string[][] = [];
  const rules: number[] = [];
  const totalRow = (label: string, t: RewardsTotals) => [
    label,
    `${t.rewards} reward${t.rewards === 1 ? '' : 's'}${
      t.unpriced ? `, ${t.unpriced} without price${t.pending ? ` (${t.pending} pending)` : ''}` : ''
    }`,
    '',
    '',
    t.amount,
    '',
    report.currency,
    t.value,
    '',
    '',
    '',
  ];
  for (const { month, totals } of report.months) {
    for (const r of report.rows.filter((row) => row.date.startsWith(month))) {
      // A terminal reader sees why a value is missing; the CSV keeps the cell empty.
      const row = cells(r);
      if (r.priceStatus === 'pending') row[7] = 'pending';
      lines.push(row);
    }
    rules.push(lines.length);
    lines.push(totalRow(`${month} subtotal`, totals));
  }
  rules.push(lines.length);
  lines.push(totalRow('total', report.total));
  const title = `Rewards on ${report.network} that ended from ${report.from} to ${report.to} (UTC days, both included), valued in ${report.currency}`;
  return `${title}\n\n${formatTable([...REWARDS_CSV_HEADER], lines, { right: [4, 5, 7], rulesBefore: rules })}\n`;
}

export interface IncomeFormat {
  /** The tool's documented header, in its order. */
  header: readonly string[];
  /** One reward as the tool's row, in header order (a priced or never-priced reward). */
  row: (r: RewardsReportRow) => string[];
}

export interface RewardsFormat {
  write: (report: RewardsReport) => string;
  /** True for tax-tool imports: pending rewards are left out, with a line on standard error. */
  income: boolean;
  /**
   * Which rows the report holds (rewards.ts): `records`, every reward of the subjects; `income`,
   * the user's own income only (what is left out is said on standard error).
   */
  view: 'records' | 'income';
}

const pad = (n: number) => String(n).padStart(2, '0');

function utcParts(seconds: number) {
  const d = new Date(seconds * 1000);
  return {
    y: String(d.getUTCFullYear()),
    mo: pad(d.getUTCMonth() + 1),
    d: pad(d.getUTCDate()),
    h: pad(d.getUTCHours()),
    mi: pad(d.getUTCMinutes()),
    s: pad(d.getUTCSeconds()),
  };
}

/** What the reward was, for the tools' free-text column. */
function describeReward(r: RewardsReportRow): string {
  const kind =
    r.stakingType === 'fixed' ? '' : ` (${r.stakingType === 'autoRenewed' ? 'auto-renewed' : r.stakingType})`;
  if (r.kind === 'compounded') {
    return `Avalanche ${r.rewardType} staking reward compounded (restaked)${kind}, no UTXO, node ${r.nodeId}, for ${r.address}, cycle settled by ${r.rewardTxHash}`;
  }
  const part = r.kind === 'paid' ? '' : ' (its part not compounded before)';
  return `Avalanche ${r.rewardType} staking reward${kind}${part}, node ${r.nodeId}, for ${r.address}, utxo ${r.utxoId}`;
}

/** A row's id for a tool that skips ids it has: a compounded part shares its cycle's reward tx. */
const rowTxId = (r: RewardsReportRow, paid: string) =>
  r.kind === 'compounded' ? `${r.rewardTxHash}-compounded` : paid;

/**
 * Koinly's "Universal" custom CSV template (support.koinly.io, "How to create a custom CSV file with
 * your data"): dates as `YYYY-MM-DD HH:mm UTC`; a deposit with the `reward` tag is income, the tag
 * Koinly's tag list gives for staking rewards ("What are tags"). Net Worth is the value Koinly
 * records instead of its own market price.
 */
export const koinly: IncomeFormat = {
  header: [
    'Date',
    'Sent Amount',
    'Sent Currency',
    'Received Amount',
    'Received Currency',
    'Fee Amount',
    'Fee Currency',
    'Net Worth Amount',
    'Net Worth Currency',
    'Label',
    'Description',
    'TxHash',
  ],
  row: (r) => {
    const t = utcParts(r.endTimestamp);
    return [
      `${t.y}-${t.mo}-${t.d} ${t.h}:${t.mi} UTC`,
      '',
      '',
      r.amount,
      'AVAX',
      '',
      '',
      r.value ?? '',
      r.value === undefined ? '' : r.currency.toUpperCase(),
      'reward',
      describeReward(r),
      rowTxId(r, r.rewardTxHash),
    ];
  },
};

/**
 * CoinTracking's CSV import (cointracking.info/import/import_csv/): the eleven required columns,
 * then the optional `Tx-ID` and the two values in the account currency. Type `Staking` is income;
 * dates as `DD.MM.YYYY HH:mm:ss` (set the import's time zone to UTC). CoinTracking skips a row whose
 * Tx-ID it already has, and one reward transaction pays several outputs (a delegation pays the
 * delegator and the validator fee), so the Tx-ID is the reward tx hash and the output index.
 */
export const cointracking: IncomeFormat = {
  header: [
    'Type',
    'Buy Amount',
    'Buy Currency',
    'Sell Amount',
    'Sell Currency',
    'Fee',
    'Fee Currency',
    'Exchange',
    'Trade-Group',
    'Comment',
    'Date',
    'Tx-ID',
    'Buy Value in Account Currency',
    'Sell Value in Account Currency',
  ],
  row: (r) => {
    const t = utcParts(r.endTimestamp);
    return [
      'Staking',
      r.amount,
      'AVAX',
      '',
      '',
      '',
      '',
      'Avalanche P-Chain',
      r.address,
      describeReward(r),
      `${t.d}.${t.mo}.${t.y} ${t.h}:${t.mi}:${t.s}`,
      rowTxId(r, `${r.rewardTxHash}-${r.outputIndex}`),
      r.value ?? '',
      '',
    ];
  },
};

/**
 * The rows an income import carries: every reward but the pending ones, and no return of restaked
 * rewards (income already, when it compounded).
 */
export function incomeRows(report: RewardsReport): RewardsReportRow[] {
  return report.rows.filter((r) => r.priceStatus !== 'pending' && r.kind !== 'restakedReturn');
}

function income(format: IncomeFormat): RewardsFormat {
  return {
    income: true,
    view: 'income',
    write: (report) => stringifyCsv([format.header, ...incomeRows(report).map(format.row)]),
  };
}

/**
 * JSON: the income rows (the summary's: pending ones kept, with their status), the totals and a
 * `summary` of what was left out, for scripts.
 */
export function formatRewardsJson(report: RewardsReport): string {
  const { rows, months, total, leftOut, invalid, ...head } = report;
  return `${JSON.stringify(
    {
      ...head,
      rows,
      summary: {
        total,
        months,
        leftOut,
        invalid: invalid.length,
      },
    },
    null,
    2,
  )}\n`;
}

export const rewardsFormats: Record<RewardsFormatName, RewardsFormat> = {
  table: { write: formatRewardsTable, income: false, view: 'records' },
  csv: { write: formatRewardsCsv, income: false, view: 'records' },
  json: { write: formatRewardsJson, income: false, view: 'income' },
  koinly: income(koinly),
  cointracking: income(cointracking),
};
