/**
 * Numbers in the CSV and table outputs keep every digit: an amount or a year total is written as
 * the exact decimal, never through a float (docs/cli.md, "Every digit").
 */
import { describe, expect, it } from 'vitest';
import { type RewardsReport, type RewardsReportRow, totalsOf } from '../../src/report/rewards.js';
import { formatRewardsCsv, formatRewardsTable } from '../../src/report/rewards-formats.js';
import { formatSummaryCsv, formatSummaryTable, summarizeRewards } from '../../src/report/rewards-summary.js';

const row = (amount: string, price: string, value: string, day: string): RewardsReportRow => ({
  date: day,
  endTimestamp: Date.parse(`${day}T00:00:00Z`) / 1000,
  address: 'avax1example',
  owner: 'address',
  nodeId: 'NodeID-example',
  rewardType: 'VALIDATOR',
  stakingType: 'fixed',
  amount,
  price,
  currency: 'eur',
  value,
  priceStatus: 'priced',
  utxoId: `utxo-${day}`,
  rewardTxHash: `tx-${day}`,
  outputIndex: 0,
});

describe('every digit in the CSV and table outputs', () => {
  // 16 significant digits in the total: one more than a spreadsheet's double keeps.
  const rows = [
    row('1000000.123456789', '31.123456789012345', '31123460.19', '2025-03-01'),
    row('405745.349038259', '29.987654321098765', '12167349.53', '2025-09-01'),
  ];
  const total = totalsOf(rows);
  const report: RewardsReport = {
    view: 'records',
    network: 'mainnet',
    currency: 'eur',
    from: '2025-01-01',
    to: '2025-12-31',
    rows,
    invalid: [],
    leftOut: [],
    months: [],
    total,
  };

  it('adds up exactly', () => {
    expect(total.amount).toBe('1405745.472495048');
    // What a spreadsheet that reads it as a number keeps: 15 significant digits.
    expect(Number(total.amount).toPrecision(15)).toBe('1405745.47249505');
  });

  it('writes amounts, prices and totals as the exact decimals, as plain cells', () => {
    const csv = formatRewardsCsv(report);
    for (const text of ['1000000.123456789', '405745.349038259', '31.123456789012345', '29.987654321098765'])
      expect(csv.split(/[\n,]/)).toContain(text);
    const summary = formatSummaryCsv(report, summarizeRewards(report, 'year'));
    expect(summary.split(/[\n,]/)).toContain('1405745.472495048');
    expect(formatSummaryTable(report, summarizeRewards(report, 'year'))).toContain('1405745.472495048');
    expect(formatRewardsTable(report)).toContain('1405745.472495048');
  });
});
