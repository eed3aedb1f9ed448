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
  /** The `owner` column: a configured address's, the node operator's, or a delegator's of the node. */
  kind: 'address' | 'node' | 'delegator';
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
        kind: owners.length ? 'address' : r.rewardType === 'DELEGATOR' ? 'delegator' : 'node',
        amount: avax(r.reward.amount),
        value: price === undefined ? undefined : money(cents(r.reward.amount, price)),
        // Every reward was last read at the simulator's now: pending when younger than 24 h then.
        pending: price === undefined && r.endTimestamp > now - DAY,
      };
    });
}

/** The user's own income: what the tax-tool imports and the summary hold by default. */
const incomeRewards = () => expectedRewards().filter((e) => e.kind !== 'delegator');

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
    const expected = incomeRewards();
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
    // With the delegators' rewards of the node (a provider's file): a delegation pays two outputs.
    const expected = expectedRewards().filter((e) => !e.pending);
    const r = await report(['--format', 'cointracking', '--include-delegators']);
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
      const expected = incomeRewards();
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

describe('report rewards: your income by default', () => {
  // Several CLI runs each, run at once: a loaded machine takes seconds per run.
  const BOUND = 180_000;

  /** The delegators' rewards of the node: count, AVAX and value as the stderr line says them. */
  function delegatorSums() {
    const list = expectedRewards().filter((e) => e.kind === 'delegator');
    const priced = list.filter((e) => e.value !== undefined);
    return {
      list,
      amount: avax(list.reduce((s, e) => s + BigInt(e.reward.reward.amount), 0n)),
      value: money(priced.reduce((s, e) => s + BigInt(e.value!.replace('.', '')), 0n)),
    };
  }

  it(
    "leaves the node's delegators' rewards out of the income files, the summary and json, and says so",
    async () => {
      const d = delegatorSums();
      expect(d.list.length).toBeGreaterThan(0);
      const line = `note: left out: ${d.list.length} DELEGATOR reward(s) of the configured node id(s) paid to their delegators, not to a configured address: ${d.amount} AVAX, ${d.value} usd`;
      const runs = [
        ['--format', 'koinly'],
        ['--format', 'cointracking'],
        ['--summary', 'year'],
        ['--format', 'json'],
      ];
      const [koinlyRun, ...others] = await Promise.all(
        [...runs, ['--format', 'json', '--include-delegators']].map((args) => report(args)),
      );
      const all = others.pop()!;
      for (const [i, r] of [koinlyRun!, ...others].entries()) {
        expect(r.stderr, runs[i]!.join(' ')).toContain(line);
        expect(r.stdout).not.toContain(d.list[0]!.reward.utxoId);
      }
      const koinlyRows = readBack(koinlyRun!.stdout, koinly.header);
      expect(koinlyRows).toHaveLength(incomeRewards().filter((e) => !e.pending).length);
      const json = JSON.parse(others.at(-1)!.stdout);
      expect(json.view).toBe('income');
      expect(json.rows).toHaveLength(incomeRewards().length);
      expect(json.summary.leftOut).toEqual([
        {
          kind: 'delegator',
          rewardType: 'DELEGATOR',
          totals: expect.objectContaining({ rewards: d.list.length, amount: d.amount, value: d.value }),
        },
      ]);
      // --include-delegators puts them back, and nothing is said left out.
      expect(JSON.parse(all.stdout).rows).toHaveLength(expectedRewards().length);
      expect(all.stderr).not.toContain('left out:');
    },
    BOUND,
  );

  it(
    'keeps every reward of the subjects in csv and table, with whose it is in the owner column',
    async () => {
      const expected = expectedRewards();
      const [csv, table] = await Promise.all([report(['--format', 'csv']), report(['--format', 'table'])]);
      const rows = parse(csv.stdout) as string[][];
      const at = rows[0]!.indexOf('owner');
      expect(at).toBeGreaterThan(0);
      const byKind = (kind: string) => rows.slice(1).filter((row) => row[at] === kind).length;
      for (const kind of ['address', 'node', 'delegator'] as const) {
        expect(byKind(kind), kind).toBe(expected.filter((e) => e.kind === kind).length);
        expect(byKind(kind), kind).toBeGreaterThan(0);
      }
      expect(table.stderr).not.toContain('left out:');
      expect(table.stdout).toContain(' delegator');
    },
    BOUND,
  );

  it(
    'filters every format by --reward-type; an unknown type is exit 2 naming the valid ones',
    async () => {
      const types = ['VALIDATOR', 'VALIDATOR_FEE'];
      const [csvRun, jsonRun, koinlyRun, bad] = await Promise.all([
        report(['--format', 'csv', '--reward-type', types.join(',')]),
        report(['--format', 'json', '--reward-type', 'DELEGATOR']),
        report(['--format', 'koinly', '--reward-type', 'VALIDATOR_FEE']),
        runCli(['report', 'rewards', '--from', FROM, '--to', TO, '--reward-type', 'VALIDATOR,STAKING'], env),
      ]);
      const csv = parse(csvRun.stdout) as string[][];
      expect(csv.length - 1).toBe(
        expectedRewards().filter((e) => types.includes(e.reward.rewardType)).length,
      );
      const json = JSON.parse(jsonRun.stdout);
      expect(json.rows.every((r: { rewardType: string }) => r.rewardType === 'DELEGATOR')).toBe(true);
      expect(json.rows).toHaveLength(
        incomeRewards().filter((e) => e.reward.rewardType === 'DELEGATOR').length,
      );
      const koinlyRows = readBack(koinlyRun.stdout, koinly.header);
      expect(koinlyRows.length).toBeGreaterThan(0);
      expect(koinlyRows.every((row) => row.Description!.includes('VALIDATOR_FEE'))).toBe(true);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        '--reward-type "STAKING": not a reward type; use one or more of VALIDATOR, DELEGATOR, VALIDATOR_FEE',
      );
    },
    BOUND,
  );

  it(
    'leaves subjects no longer configured out, named on stderr, back with --node-id or --all-subjects',
    async () => {
      // The node id replaced in the config: only the addresses stay.
      const { env: narrowed, cleanup } = rewardsCliEnv(c, addresses, []);
      try {
        const gone = expectedRewards().filter((e) => e.kind !== 'address');
        const run = (args: string[]) =>
          runCli(['report', 'rewards', '--from', FROM, '--to', TO, '--format', 'csv', ...args], narrowed);
        const [r, koinlyRun, namedRun, all, both, notNode] = await Promise.all([
          run([]),
          run(['--format', 'koinly']),
          run(['--node-id', nodeId]),
          run(['--all-subjects']),
          run(['--all-subjects', '--node-id', nodeId]),
          run(['--node-id', addresses[0]!]),
        ]);
        expect(r.code, r.stderr).toBe(0);
        const rows = (parse(r.stdout) as string[][]).slice(1);
        expect(rows).toHaveLength(expectedRewards().length - gone.length);
        expect(rows.every((row) => row.at(-3) === 'address')).toBe(true);
        expect(r.stderr).toContain(
          `note: left out: ${gone.length} reward(s) of subjects no longer configured (paid for node id(s) ${nodeId} (${gone.length})`,
        );
        expect(koinlyRun.stderr).toContain(`${gone.length} reward(s) of subjects no longer configured`);
        // Named, the node's rewards come back (its own rows only); --all-subjects keeps them all.
        const named = (parse(namedRun.stdout) as string[][]).slice(1);
        expect(named).toHaveLength(expectedRewards().filter((e) => e.reward.nodeId === nodeId).length);
        expect(named.some((row) => row.at(-3) === 'delegator')).toBe(true);
        expect((parse(all.stdout) as string[][]).slice(1)).toHaveLength(expectedRewards().length);
        expect(all.stderr).not.toContain('left out:');
        expect(both.code).toBe(2);
        expect(notNode.code).toBe(2);
        expect(notNode.stderr).toContain('not a node id');
      } finally {
        cleanup();
      }
    },
    BOUND,
  );
});
