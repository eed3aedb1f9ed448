import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewards } from '../../jobs/rewards.js';
import { demoAddress, demoNodeId } from '../../src/commands/demo-config.js';
import { runHandler } from '../../src/kernel/index.js';
import { cointracking, koinly } from '../../src/report/rewards-formats.js';
import { REWARDS_SUMMARY_HEADER } from '../../src/report/rewards-summary.js';
import type { HistoricalReward as SimulatedReward } from '../../src/simulator/types.js';
import { upsertRewards } from '../../src/store/index.js';
import type { HistoricalReward } from '../../src/upstream/index.js';
import { runCli } from '../support/cli.js';
import { type Collector, startCollector } from '../support/collector.js';
import { avax, cents, money, rewardsCliEnv } from '../support/rewards-report.js';

/**
 * The tax-tool imports and the yearly summary of `report rewards`, read back by the tools'
 * documented header names and checked row by row against the simulator's truth: amounts, dates
 * and values to the cent, a reward not priced yet (left out), one never priced, one owned by two
 * configured addresses, a New Year in UTC, and cells a spreadsheet would run as formulas.
 */

const addresses = [demoAddress('income-validator-17'), demoAddress('income-delegator-17')];
const nodeId = demoNodeId('income-node-17');
const FROM = '2024-12-01';
const TO = '2025-06-15'; // the simulator's "now" is 2025-06-15T12:34:56Z: the newest rewards are pending
const DAY = 86_400;

let c: Collector;
let env: Record<string, string>;
let cleanupDir: () => void;
/** The rewards stored beside the simulator's, as the API would send them. */
const extras: HistoricalReward[] = [];

/** A priced reward of the first address, changed by `change`, stored as seen at `seenAt` (seconds). */
async function storeReward(
  utxoId: string,
  change: (r: HistoricalReward) => void,
  seenAt: number,
): Promise<HistoricalReward> {
  const base = c.sim.truth.rewards('mainnet', { addresses: [addresses[0]!] }, 'usd')[3]!;
  const reward: HistoricalReward = {
    ...base,
    utxoId,
    rewardTxHash: `reward-tx-${utxoId}`,
    addresses: [addresses[0]!],
    reward: { ...base.reward, historicalPrice: { currencyCode: 'usd', value: '21.5' } },
  };
  change(reward);
  await upsertRewards(c.store, 'mainnet', [reward], new Date(seenAt * 1000).toISOString());
  extras.push(reward);
  return reward;
}

beforeAll(async () => {
  c = await startCollector();
  const summary = await runHandler(
    'rewards',
    rewards,
    { network: 'mainnet', addresses, nodeIds: [nodeId], currency: 'usd', pageSize: 100, maxPages: 100 },
    c.deps,
  );
  expect(summary.status).toBe('succeeded');
  const now = c.clock.now() / 1000;
  const eve = Date.UTC(2024, 11, 31, 23, 59, 59) / 1000;
  await storeReward(
    'shared-utxo',
    (r) => {
      r.addresses = [...addresses];
    },
    now,
  );
  await storeReward(
    'new-year-eve',
    (r) => {
      r.endTimestamp = eve;
    },
    now,
  );
  await storeReward(
    'new-year-day',
    (r) => {
      r.endTimestamp = eve + 1;
    },
    now,
  );
  // Read long after it was 24 h old, still without a price: the API will not price it.
  await storeReward(
    'never-priced',
    (r) => {
      delete r.reward.historicalPrice;
    },
    now,
  );
  // Ended an hour ago, read now: the API prices it tomorrow.
  await storeReward(
    'pending-utxo',
    (r) => {
      r.endTimestamp = now - 3600;
      delete r.reward.historicalPrice;
    },
    now,
  );
  // Upstream text a spreadsheet would run, in the cells that carry it.
  await storeReward(
    'formula-utxo',
    (r) => {
      r.nodeId = '=HYPERLINK("http://evil.example","x")';
      r.rewardTxHash = '-2+3';
    },
    now,
  );
  ({ env, cleanup: cleanupDir } = rewardsCliEnv(c, addresses, [nodeId]));
});

afterAll(async () => {
  await c?.close();
  cleanupDir?.();
});

interface Expected {
  /** The simulator's (price a number) or an extra as stored (price a string). */
  reward: SimulatedReward | HistoricalReward;
  /** Whom the report says it was collected for. */
  owner: string;
  amount: string;
  /** Undefined: no price. */
  value: string | undefined;
  pending: boolean;
}

/** Every reward of the range from the simulator's truth and the extras, oldest first. */
function expectedRewards(): Expected[] {
  const fromSec = Date.parse(`${FROM}T00:00:00Z`) / 1000;
  const untilSec = Date.parse(`${TO}T00:00:00Z`) / 1000 + DAY;
  const byUtxo = new Map<string, SimulatedReward | HistoricalReward>();
  for (const r of [
    ...c.sim.truth.rewards('mainnet', { addresses }, 'usd'),
    ...c.sim.truth.rewards('mainnet', { nodeIds: [nodeId] }, 'usd'),
    ...extras,
  ]) {
    byUtxo.set(r.utxoId, r);
  }
  const now = c.clock.now() / 1000;
  return [...byUtxo.values()]
    .filter((r) => r.endTimestamp >= fromSec && r.endTimestamp < untilSec)
    .sort((a, b) => a.endTimestamp - b.endTimestamp || (a.utxoId < b.utxoId ? -1 : 1))
    .map((r) => {
      const price = r.reward.historicalPrice ? String(r.reward.historicalPrice.value) : undefined;
      const owners = r.addresses.filter((a) => addresses.includes(a)).sort();
      return {
        reward: r,
        owner: owners.length ? owners.join(' ') : nodeId,
        amount: avax(r.reward.amount),
        value: price === undefined ? undefined : money(cents(r.reward.amount, price)),
        // Every reward was last read at the simulator's now: pending when younger than 24 h then.
        pending: price === undefined && r.endTimestamp > now - DAY,
      };
    });
}

/** The file's rows as objects keyed by its header, checking the header is the tool's. */
function readBack(csv: string, header: readonly string[]): Record<string, string>[] {
  const rows = parse(csv, { bom: true }) as string[][];
  expect(rows[0]).toEqual([...header]);
  return rows.slice(1).map((row) => Object.fromEntries(header.map((h, i) => [h, row[i]!])));
}

/** A cell as a spreadsheet user sees its text: the neutralising quote removed. */
const unquote = (cell: string) => cell.replace(/^'(?=[=+\-@\t\r])/, '');

function utc(seconds: number) {
  const iso = new Date(seconds * 1000).toISOString();
  return { y: iso.slice(0, 4), mo: iso.slice(5, 7), d: iso.slice(8, 10), hms: iso.slice(11, 19) };
}

async function report(args: string[]) {
  const r = await runCli(['report', 'rewards', '--from', FROM, '--to', TO, ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('report rewards income formats', () => {
  it('writes Koinly rows equal to the ground truth, pending rewards left out with a line on stderr', async () => {
    const expected = expectedRewards();
    const r = await report(['--format', 'koinly']);
    const rows = readBack(r.stdout, koinly.header);
    const imported = expected.filter((e) => !e.pending);
    expect(rows).toHaveLength(imported.length);
    rows.forEach((row, i) => {
      const e = imported[i]!;
      const t = utc(e.reward.endTimestamp);
      expect(row).toEqual({
        Date: `${t.y}-${t.mo}-${t.d} ${t.hms.slice(0, 5)} UTC`,
        'Sent Amount': '',
        'Sent Currency': '',
        'Received Amount': e.amount,
        'Received Currency': 'AVAX',
        'Fee Amount': '',
        'Fee Currency': '',
        'Net Worth Amount': e.value ?? '',
        'Net Worth Currency': e.value === undefined ? '' : 'USD',
        Label: 'reward',
        Description: expect.stringContaining(`utxo ${e.reward.utxoId}`),
        TxHash: expect.any(String),
      });
      expect(unquote(row.TxHash!)).toBe(e.reward.rewardTxHash);
      expect(row.Description).toContain(`for ${e.owner},`);
    });
    const pending = expected.filter((e) => e.pending);
    expect(pending.length).toBeGreaterThan(0);
    expect(r.stderr).toContain(`${pending.length} reward(s) pending, left out of this file`);
    // Never priced: imported without a net worth (the tool values it), and said on stderr.
    expect(rows.find((row) => row.Description!.includes('never-priced'))?.['Net Worth Amount']).toBe('');
    expect(r.stderr).toContain('1 reward(s) have no usd price stored although they were older than 24 h');
    // The shared reward is one row for both addresses; the formula-bearing hash is neutralised.
    expect(rows.filter((row) => row.Description!.includes('shared-utxo'))).toHaveLength(1);
    expect(rows.find((row) => row.Description!.includes('formula-utxo'))?.TxHash).toBe("'-2+3");
    // New Year in UTC: the eve's reward on 2024-12-31, the next second's on 2025-01-01.
    expect(rows.filter((row) => /^(2024-12-31 23:59|2025-01-01 00:00) UTC$/.test(row.Date!))).toHaveLength(2);
  });

  it('writes CoinTracking rows equal to the ground truth, Tx-IDs unique per output', async () => {
    const expected = expectedRewards().filter((e) => !e.pending);
    const r = await report(['--format', 'cointracking']);
    const rows = readBack(r.stdout, cointracking.header);
    expect(rows).toHaveLength(expected.length);
    rows.forEach((row, i) => {
      const e = expected[i]!;
      const t = utc(e.reward.endTimestamp);
      expect({ ...row, Comment: '', 'Tx-ID': unquote(row['Tx-ID']!) }).toEqual({
        Type: 'Staking',
        'Buy Amount': e.amount,
        'Buy Currency': 'AVAX',
        'Sell Amount': '',
        'Sell Currency': '',
        Fee: '',
        'Fee Currency': '',
        Exchange: 'Avalanche P-Chain',
        'Trade-Group': e.owner,
        Comment: '',
        Date: `${t.d}.${t.mo}.${t.y} ${t.hms}`,
        'Tx-ID': `${e.reward.rewardTxHash}-${e.reward.outputIndex}`,
        'Buy Value in Account Currency': e.value ?? '',
        'Sell Value in Account Currency': '',
      });
    });
    // A delegation to the node pays two outputs in one transaction: CoinTracking must keep both.
    const ids = rows.map((row) => row['Tx-ID']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(expected.map((e) => e.reward.rewardTxHash)).size).toBeLessThan(ids.length);
    expect(rows.find((row) => row.Comment!.includes('formula-utxo'))?.['Tx-ID']).toBe("'-2+3-0");
    expect(r.stderr).toContain('left out of this file');
  });

  it('neutralises formula cells in the csv format too, numbers staying numbers', async () => {
    const r = await report(['--format', 'csv']);
    const rows = parse(r.stdout) as string[][];
    const formula = rows.find((row) => row[2]?.includes('HYPERLINK'))!;
    expect(formula[2]).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect(formula[4]).toMatch(/^\d+\.\d{9}$/);
    // The csv format keeps every reward, pending ones with empty price and value.
    expect(rows.length - 1).toBe(expectedRewards().length);
  });

  for (const format of ['csv', 'table'] as const) {
    it(`sums the rows per UTC year and address exactly in the ${format} summary`, async () => {
      const expected = expectedRewards();
      const r = await report(['--summary', 'year', '--format', format]);
      const groups = new Map<string, Expected[]>();
      for (const e of expected) {
        const key = `${utc(e.reward.endTimestamp).y},${e.owner}`;
        groups.set(key, [...(groups.get(key) ?? []), e]);
      }
      const want = [...groups.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, list]) => {
          const [year, owner] = key.split(',') as [string, string];
          const priced = list.filter((e) => e.value !== undefined);
          const sumCents = priced.reduce((s, e) => s + BigInt(e.value!.replace('.', '')), 0n);
          const sumNano = list.reduce((s, e) => s + BigInt(e.reward.reward.amount), 0n);
          return [
            year,
            owner,
            String(list.length),
            String(list.length - priced.length),
            String(list.filter((e) => e.pending).length),
            avax(sumNano),
            'usd',
            money(sumCents),
          ];
        });
      expect(want.map((w) => w[0])).toEqual(expect.arrayContaining(['2024', '2025']));
      expect(want.some((w) => w[1] === [...addresses].sort().join(' '))).toBe(true);
      if (format === 'csv') {
        const rows = parse(r.stdout) as string[][];
        expect(rows[0]).toEqual([...REWARDS_SUMMARY_HEADER]);
        expect(rows.slice(1)).toEqual(want);
      } else {
        const lines = r.stdout.split('\n');
        for (const w of want) {
          const cells = lines.map((l) => l.trim().split(/\s{2,}/));
          expect(cells.find((cell) => cell[0] === w[0] && cell[1] === w[1])).toEqual(w);
        }
      }
    });
  }

  it('rejects a summary in a tax-tool format with exit code 2', async () => {
    const r = await runCli(
      ['report', 'rewards', '--from', FROM, '--to', TO, '--summary', 'year', '--format', 'koinly'],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--summary with --format koinly');
    const bad = await runCli(['report', 'rewards', '--from', FROM, '--to', TO, '--summary', 'month'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'month' is invalid");
  });
});
