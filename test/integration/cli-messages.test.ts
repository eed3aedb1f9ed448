import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { demoAddress, demoCb58, demoNodeId } from '../../src/commands/demo-config.js';
import { startSimulator } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * The first hour's messages: each one names what is wrong and leads to the fix. Nothing here
 * depends on the store (DATABASE_PATH is SQLite's): the postgres project skips the file.
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dirOfTest(): string {
  const { dir, cleanup } = tempDir('glacier-messages-');
  cleanups.push(cleanup);
  return dir;
}

function file(name: string, text: string): string {
  const path = join(dirOfTest(), name);
  writeFileSync(path, text);
  return path;
}

const treasury = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';

describe('config check messages', () => {
  it('says to quote an unquoted 0x address or chain id, shown as written, beside every other problem', async () => {
    const path = file(
      'glacier-collector.yaml',
      [
        'jobs:',
        '  supply:',
        '    shedule: "* * * * *"',
        '  rewards:',
        '    schedule: "0 * * * *"',
        `    addresses: [${demoAddress('x').slice(0, -1)}q]`,
        '  exports:',
        '    schedule: "0 2 * * *"',
        '    definitions:',
        '      - name: treasury',
        '        type: TRANSACTION_EXPORT_EVM',
        `        addresses: [${treasury}, 0x12]`,
        '        includeChains: [43114]',
        '',
      ].join('\n'),
    );
    const r = await runCli(['config', 'check', '-c', path]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    const at = (key: string) => lines.filter((l) => l.startsWith(`  - ${key}`));
    expect(at('jobs.exports.definitions[0].addresses[0]')).toEqual([
      `  - jobs.exports.definitions[0].addresses[0] = ${treasury}: unquoted, YAML reads it as the number 6.4956264143494794e+47; quote it so it stays text: "${treasury}"`,
    ]);
    expect(at('jobs.exports.definitions[0].includeChains[0]')).toEqual([
      '  - jobs.exports.definitions[0].includeChains[0] = 43114: unquoted, YAML reads it as a number; quote it so it stays text: "43114"',
    ]);
    // In the same pass: the checks behind the numbers ran on the text as written.
    expect(at('jobs.exports.definitions[0].addresses[1]').join('\n')).toContain('40 hex digits');
    expect(at('jobs.rewards.addresses[0]').join('\n')).toContain('checksum');
    expect(at('jobs.supply.shedule')).toEqual([
      '  - jobs.supply.shedule: unknown key; did you mean `schedule`?',
    ]);
    expect(at('jobs.supply.schedule')).toEqual(['  - jobs.supply.schedule: missing (required)']);
    expect(r.stderr).not.toContain('expected string, received');
    expect(r.stderr).not.toContain('e+47"');
  });

  it('says to quote an unquoted cron expression, which YAML reads as an alias, on every such line', async () => {
    const path = file(
      'glacier-collector.yaml',
      [
        'jobs:',
        '  supply:',
        '    schedule: */5 * * * *   # every 5 minutes',
        '  transactions:',
        '    schedule: * * * * *',
        '  rewards:',
        '    schedule: "0 * * * *"',
        '    addresses: [avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg]',
        '',
      ].join('\n'),
    );
    const r = await runCli(['config', 'check', '-c', path]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `Invalid config file ${path}:`,
      '  - jobs.supply.schedule = */5 * * * * (line 3): unquoted, YAML reads a value starting with "*" as an alias; quote it so it stays text: schedule: "*/5 * * * *"',
      '  - jobs.transactions.schedule = * * * * * (line 5): unquoted, YAML reads a value starting with "*" as an alias; quote it so it stays text: schedule: "* * * * *"',
    ]);
    expect(r.stderr).not.toContain('Unexpected alias');
  });

  it('checks node ids and transaction ids with their cb58 checksum, as addresses are checked', async () => {
    const node = demoNodeId('n');
    const tx = demoCb58('t');
    const changed = (id: string) => `${id.slice(0, -1)}${id.endsWith('2') ? '3' : '2'}`;
    const path = file(
      'glacier-collector.yaml',
      [
        'jobs:',
        '  rewards:',
        '    schedule: "0 * * * *"',
        `    nodeIds: [${node}, ${changed(node)}, ${node.slice(0, -2)}]`,
        '  signatures:',
        '    schedule: "0 * * * *"',
        `    txHashes: [${tx}, ${changed(tx)}]`,
        '',
      ].join('\n'),
    );
    const r = await runCli(['config', 'check', '-c', path]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').slice(1)).toEqual([
      `  - jobs.rewards.nodeIds[1] = "${changed(node)}": has an invalid cb58 checksum (a typo?)`,
      `  - jobs.rewards.nodeIds[2] = "${node.slice(0, -2)}": is not a node id: its cb58 holds 19 bytes where a node id has 20 (a character missing or added?)`,
      `  - jobs.signatures.txHashes[1] = "${changed(tx)}": has an invalid cb58 checksum (a typo?)`,
    ]);
  });

  it('names the closest key of the section, inside lists too, and the valid keys when none is close', async () => {
    const path = file(
      'glacier.json',
      JSON.stringify({
        jobs: {
          transactions: { schedule: '* * * * *', pagesize: 10 },
          signatures: { schedule: '* * * * *', txHashes: [demoCb58('t')], netwrok: 'fuji' },
          usageMetrics: { schedule: '0 * * * *', sources: [{ source: 'dataApi', lokback: '2d' }] },
        },
        budget: { colour: 'blue' },
      }),
    );
    const r = await runCli(['config', 'check', '-c', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('jobs.transactions.pagesize: unknown key; did you mean `pageSize`?');
    expect(r.stderr).toContain('jobs.signatures.netwrok: unknown key; did you mean `network`?');
    expect(r.stderr).toContain('jobs.usageMetrics.sources[0].lokback: unknown key; did you mean `lookback`?');
    expect(r.stderr).toContain(
      'budget.colour: unknown key; valid here: `tier`, `computeUnitsPerMinute`, `computeUnitsPerDay`',
    );
  });
});

describe('environment messages', () => {
  it('an unknown GLACIER_ variable is named with the closest one it reads, never with its value', async () => {
    const r = await runCli(['config', 'check'], {
      GLACIER_APIKEY: 'sk-very-secret-key',
      GLACIER_COLOUR: 'blue',
      DATABASE_PATH: join(dirOfTest(), 'glacier.db'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      'warning: GLACIER_APIKEY is not a variable glacier-collector reads, so it is ignored; did you mean GLACIER_API_KEY?',
      'warning: GLACIER_COLOUR is not a variable glacier-collector reads, so it is ignored; its variables of that name: GLACIER_API_KEY, GLACIER_API_KEY_FILE, GLACIER_BASE_URL, GLACIER_CONFIG',
    ]);
    expect(r.stdout).toContain('no API key (keyless limits)');
    expect(r.stdout + r.stderr).not.toContain('sk-very-secret-key');
  });

  it('a key the API refuses (401) names GLACIER_API_KEY and GLACIER_API_KEY_FILE', async () => {
    const sim = await startSimulator({ port: 0, requireApiKey: true, apiKeys: { right: {} } });
    try {
      const r = await runCli(
        ['run', 'supply', '-c', file('glacier.json', '{"jobs":{"supply":{"schedule":"* * * * *"}}}')],
        {
          GLACIER_BASE_URL: sim.url,
          GLACIER_API_KEY: 'wrong',
          DATABASE_PATH: join(dirOfTest(), 'glacier.db'),
        },
      );
      expect(r.code).toBe(1);
      // The run's failure, as its log line and job_runs say it.
      expect(r.stdout + r.stderr).toContain(
        '[GET] /v1/avax/supply: 401 Unauthorized: Invalid API key (the API refused the key: check GLACIER_API_KEY (or the file GLACIER_API_KEY_FILE names))',
      );
    } finally {
      await sim.close();
    }
  });
});

describe('a database that grows without bound', () => {
  it('plan and config check say so when the largest table is kept forever, and what to set', async () => {
    const path = file('glacier.json', JSON.stringify({ jobs: { transactions: { schedule: '* * * * *' } } }));
    const warning =
      'WARNING: transactions, the largest table, is kept forever: it grows 103.0 MiB–1.0 GiB a day without bound; set retention.transactions (e.g. "7d", as the starter config) and the maintenance job prunes it';
    const plan = await runCli(['plan', '-c', path]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n').filter((l) => l.startsWith('WARNING'))).toEqual([warning]);
    const check = await runCli(['config', 'check', '-c', path]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout.split('\n').filter((l) => l.startsWith('WARNING'))).toEqual([
      `${warning} (\`node --import tsx src/cli.ts -c ${path} plan\` sizes it)`,
    ]);
    // Pruned, it is said no more.
    const kept = file(
      'kept.json',
      JSON.stringify({
        jobs: { transactions: { schedule: '* * * * *' } },
        retention: { transactions: '7d' },
      }),
    );
    expect((await runCli(['plan', '-c', kept])).stdout).not.toContain('WARNING');
  });
});

describe('run <job> messages', () => {
  it('an unknown job is one line naming the closest job, without the help', async () => {
    const r = await runCli(['run', 'usgae-metrics']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      'error: unknown job "usgae-metrics" (did you mean `usage-metrics`?); jobs: supply, transactions, rewards, validators, usage-metrics, signatures, exports, maintenance',
    ]);
    const far = await runCli(['run', 'everything']);
    expect(far.stderr.trim().split('\n')).toHaveLength(1);
    expect(far.stderr).not.toContain('did you mean');
  });

  it("accepts the config key's spelling of a job (usageMetrics runs usage-metrics)", async () => {
    const path = file('glacier.json', JSON.stringify({ jobs: {} }));
    const r = await runCli(['run', 'usageMetrics', '-c', path]);
    // Known under that name: what stops it is the missing section, named by its key.
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'jobs.usageMetrics: not configured; add it to the config file to run "usage-metrics"',
    );
  });
});

describe('database path messages', () => {
  it('a DATABASE_PATH under a file says that file is not a folder', async () => {
    const dir = dirOfTest();
    const notAFolder = join(dir, 'data');
    writeFileSync(notAFolder, 'a file, not a folder');
    for (const path of [join(notAFolder, 'glacier.db'), join(notAFolder, 'deeper', 'glacier.db')]) {
      const r = await runCli(['migrate'], { DATABASE_PATH: path });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `DATABASE_PATH = "${path}": cannot open the database: ${notAFolder} is a file, not a folder: the database cannot go inside it; choose a path whose folders are folders (or move that file)`,
      );
    }
  });
});
