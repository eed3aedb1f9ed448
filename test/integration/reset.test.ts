import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import { rewards } from '../../jobs/rewards.js';
import { transactions } from '../../jobs/transactions.js';
import { demoAddress, demoNodeId } from '../../src/commands/demo-config.js';
import { planReset, type ResetPlan } from '../../src/commands/reset.js';
import { loadConfig } from '../../src/config/index.js';
import { runHandler } from '../../src/kernel/index.js';
import { listCursors } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';
import { type Collector, startCollector } from '../support/collector.js';
import { tempDir } from '../support/tmp.js';

/**
 * `reset <job>`: re-collect a stream from scratch. The dry run changes nothing and says what the
 * next run fetches and costs; `--yes` removes the cursors; the next run reads again and writes no
 * row twice.
 */

const addresses = [demoAddress('reset-a'), demoAddress('reset-b')];
const nodeIds = [demoNodeId('reset-node')];
const PAGE = 25;
const rewardsPayload = {
  network: 'mainnet' as const,
  addresses,
  nodeIds,
  currency: 'usd' as const,
  pageSize: PAGE,
  maxPages: 50,
};
const txPayload = { networks: ['mainnet' as const], statuses: ['all' as const], pageSize: 100, maxPages: 2 };

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function setUp() {
  const c = await startCollector();
  closers.push(() => c.close());
  const { dir, cleanup } = tempDir('glacier-reset-');
  closers.push(cleanup);
  const file = {
    jobs: {
      rewards: { schedule: '0 * * * *', addresses, nodeIds, pageSize: PAGE, maxPages: 50 },
      transactions: { schedule: '* * * * *', maxPages: 2 },
      signatures: { schedule: '0 * * * *', txHashes: ['3P91K6nuDFvDodcRuJTsgdf9SvYe5pMiKk38HppsoeAiEztCP'] },
    },
  };
  const configPath = join(dir, 'glacier.json');
  writeFileSync(configPath, JSON.stringify(file));
  const config = loadConfig({ env: { ...c.dbEnv }, file });
  expect((await runHandler('rewards', rewards, rewardsPayload, c.deps)).status).toBe('succeeded');
  expect((await runHandler('transactions', transactions, txPayload, c.deps)).status).toBe('succeeded');
  const env = { ...c.dbEnv, GLACIER_CONFIG: configPath, GLACIER_BASE_URL: c.sim.url };
  return { c, config, env };
}

const count = async (c: Collector, table: string) =>
  (await c.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;

describe('reset <job>', () => {
  it('a dry run changes nothing and says, per stream, what the cursor holds and what the next run fetches', async () => {
    const { c, env } = await setUp();
    const before = await listCursors(c.store, 'rewards');
    expect(before).toHaveLength(2);
    const r = await runCli(['reset', 'rewards'], env);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('rewards: 2 stream(s), 2 with a cursor');
    for (const cursor of before) expect(r.stdout).toContain(`  ${cursor.scope}  (`);
    expect(r.stdout).toMatch(
      /^ {4}cursor now: newest \S+ \S+Z; history read: \d+ page\(s\), \d+ item\(s\)$/m,
    );
    expect(r.stdout).toMatch(
      /^ {4}next run: {3}\d+ request\(s\), [\d,]+ CU: the whole history again, newest first, 50 page\(s\) \(maxPages\) a run until it is complete; in all ~\d+ page\(s\), [\d,]+ CU, about \S+ at the budget and schedule$/m,
    );
    expect(lines.at(-2)).toMatch(
      /^Dry run: nothing changed\. Resetting 2 cursor\(s\) makes the next run of rewards fetch as above \([\d,]+ CU\)/,
    );
    expect(lines.at(-1)).toBe('To reset: node --import tsx src/cli.ts reset rewards --yes');
    expect(await listCursors(c.store, 'rewards')).toEqual(before);
  });

  it('--yes removes the cursors of the scope asked for; the next run reads the history again and writes no row twice', async () => {
    const { c, config, env } = await setUp();
    const [addressBatch, nodeBatch] = await listCursors(c.store, 'rewards');
    const rows = await count(c, 'rewards');
    const plan = (await runCli(['reset', 'rewards', '--scope', nodeBatch!.scope, '--json'], env)).stdout;
    const dry = JSON.parse(plan) as ResetPlan;
    expect(dry).toMatchObject({ job: 'rewards', applied: false });
    expect(dry.streams.map((s) => s.scope)).toEqual([nodeBatch!.scope]);
    const pages = (JSON.parse(nodeBatch!.cursor) as { backfill: { pages: number } }).backfill.pages;
    expect(dry.streams[0]!.nextRun).toMatchObject({ requests: pages, computeUnits: pages * 100 });
    expect(dry.nextRunComputeUnits).toBe(pages * 100);

    const r = await runCli(['reset', 'rewards', '--scope', nodeBatch!.scope, '--yes'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      `Reset 1 cursor(s) of rewards: its next run fetches as above (${(pages * 100).toLocaleString('en')} CU). The rows stored stay; what is read again is written only where it changed.`,
    );
    expect((await listCursors(c.store, 'rewards')).map((x) => x.scope)).toEqual([addressBatch!.scope]);
    // Nothing is left to reset there: saying so changes nothing either.
    const again = await runCli(['reset', 'rewards', '--scope', nodeBatch!.scope, '--yes'], env);
    expect(again.stdout).toContain('Nothing to reset');

    const requests = c.sim.requests.length;
    const run = await runHandler('rewards', rewards, rewardsPayload, c.deps);
    expect(run.status).toBe('succeeded');
    // Only the reset batch was read again, page by page, as the dry run said.
    expect(c.sim.requests.length - requests).toBe(pages + 1);
    expect(await count(c, 'rewards')).toBe(rows);
    expect(run.rowsWritten).toBe(0);
    const after = await listCursors(c.store, 'rewards');
    expect(after.map((x) => x.scope)).toEqual([addressBatch!.scope, nodeBatch!.scope]);
    // And the plan of a job whose streams all have cursors again lists them.
    expect((await planReset(config, jobs, 'rewards', { scope: [] }, c.store)).streams).toHaveLength(2);
  });

  it('names the streams when a scope is unknown, and the jobs with cursors for one without', async () => {
    const { env } = await setUp();
    const scope = await runCli(['reset', 'transactions', '--scope', 'mainnet/al'], env);
    expect(scope.code).toBe(2);
    expect(scope.stderr.trim()).toBe(
      'transactions has no stream "mainnet/al" (did you mean "mainnet/all"?); its streams: mainnet/all',
    );
    const none = await runCli(['reset', 'signatures'], env);
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe(
      'signatures keeps no cursor to reset (jobs that do: transactions, rewards, validators, usage-metrics); see docs/cli.md, "reset"',
    );
  });
});
