import { stringifyCsv } from '../escape/csv-cell.js';
import { formatTable } from '../terminal/text-table.js';
import { type RewardsReport, type RewardsTotals, totalsOf } from './rewards.js';
import type { SummaryPeriod } from './rewards-format-names.js';

/**
 * `report rewards --summary year`: per UTC year and address, the count, the AVAX received and its
 * value, for a tax return. Each line is the exact sum of the report's rows of that year and
 * `address` cell (big.js on the rows' own decimals, values the sum of the rows' rounded cents), so
 * a reward shared by two configured addresses is its own line ("a b") and counted once.
 */

export const REWARDS_SUMMARY_HEADER = [
  'year',
  'address',
  'rewards',
  'unpriced',
  'pending',
  'amount_avax',
  'currency',
  'value',
] as const;

export interface SummaryLine {
  year: string;
  address: string;
  totals: RewardsTotals;
}

export function summarizeRewards(report: RewardsReport, _period: SummaryPeriod): SummaryLine[] {
  const groups = new Map<string, { year: string; address: string }>();
  for (const r of report.rows) {
    const year = r.date.slice(0, 4);
    groups.set(`${year}\n${r.address}`, { year, address: r.address });
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { year, address }]) => ({
      year,
      address,
      totals: totalsOf(report.rows.filter((r) => r.date.startsWith(year) && r.address === address)),
    }));
}

function cells(line: SummaryLine, currency: string): string[] {
  const t = line.totals;
  return [
    line.year,
    line.address,
    String(t.rewards),
    String(t.unpriced),
    String(t.pending),
    t.amount,
    currency,
    t.value,
  ];
}

export function formatSummaryCsv(report: RewardsReport, lines: readonly SummaryLine[]): string {
  return stringifyCsv([[...REWARDS_SUMMARY_HEADER], ...lines.map((l) => cells(l, report.currency))]);
}

export function formatSummaryTable(report: RewardsReport, lines: readonly SummaryLine[]): string {
  const title = `Rewards on ${report.network} per UTC year and address, from ${report.from} to ${report.to}, valued in ${report.currency} (values leave out the unpriced rewards; their AVAX is counted)`;
  const rows = lines.map((l) => cells(l, report.currency));
  rows.push(cells({ year: 'total', address: '', totals: report.total }, report.currency));
  return `${title}\n\n${formatTable([...REWARDS_SUMMARY_HEADER], rows, {
    right: [2, 3, 4, 5, 7],
    rulesBefore: [rows.length - 1],
  })}\n`;
}
