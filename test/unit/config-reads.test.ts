/**
 * A config written by an earlier release: the commands that only read (status, report, migrate,
 * backup) are never refused for a job section they do not run; start, run and config check are.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/commands/demo-config.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { tempDir } from '../support/tmp.js';

const starter010 = fileURLToPath(
  new URL('../fixtures/0.1.0/glacier-collector.example.yaml', import.meta.url),
);
const PLACEHOLDER = "a placeholder of 0.1.0's starter config, not a real";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function dir(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

function refusal(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe("0.1.0's starter config", () => {
  it('is refused where jobs run, each placeholder id named with what to do', () => {
    const err = refusal(() => loadConfig({ env: {}, configPath: starter010 }));
    expect(err.problems).toEqual([
      `jobs.rewards.nodeIds[0] = "NodeID-mWG9ZZ15qHfyv9Y872qp2ND2kSHYe5A6m": ${PLACEHOLDER} node id; replace it with yours`,
      `jobs.rewards.nodeIds[1] = "NodeID-Y8xRNxybkaqkxaGbS2YN6GLWDWU7sjzqY": ${PLACEHOLDER} node id; replace it with yours`,
      `jobs.signatures.txHashes[1] = "2oxtFTU5N5o6vQXihy727Bx8CVPAiC1A2oxtFTU5N5o6vQXih": ${PLACEHOLDER} transaction id; replace it with yours`,
    ]);
  });

  it('is read by a command that runs no job: the same problems said once, the good entries kept', () => {
    const config = loadConfig({ env: {}, configPath: starter010, reads: { invalidJobs: 'warn' } });
    expect(config.warnings).toHaveLength(2);
    const [rewards, signatures] = config.warnings;
    expect(rewards).toContain('jobs.rewards is invalid, so this command reads it without those entries');
    expect(rewards).toContain(`"NodeID-mWG9ZZ15qHfyv9Y872qp2ND2kSHYe5A6m": ${PLACEHOLDER} node id`);
    expect(rewards).toContain('start, run and config check refuse it');
    expect(signatures).toContain(`"2oxtFTU5N5o6vQXihy727Bx8CVPAiC1A2oxtFTU5N5o6vQXih": ${PLACEHOLDER}`);
    // The rest of the section is what the file says: the report's default subjects and currency.
    expect(config.jobs.rewards?.addresses).toHaveLength(3);
    expect(config.jobs.rewards?.nodeIds).toEqual([]);
    expect(config.jobs.rewards?.currency).toBe('usd');
    expect(config.jobs.signatures?.txHashes).toEqual(['3P91K6nuDFvDodcRuJTsgdf9SvYe5pMiKk38HppsoeAiEztCP']);
    expect(config.jobs.transactions?.networks).toEqual(['mainnet']);
  });
});

describe('what a command reads', () => {
  it('leaves out a job section wrong beyond its entries, and says why', () => {
    const path = join(dir(), 'c.json');
    writeFileSync(
      path,
      JSON.stringify({
        jobs: {
          rewards: { schedule: 'every hour', addresses: [demoAddress('a')] },
          supply: { schedule: '* * * * *' },
        },
      }),
    );
    expect(refusal(() => loadConfig({ env: {}, configPath: path })).problems[0]).toMatch(
      /^jobs\.rewards\.schedule = "every hour": not a valid cron expression/,
    );
    const config = loadConfig({ env: {}, configPath: path, reads: { invalidJobs: 'warn' } });
    expect(config.jobs.rewards).toBeUndefined();
    expect(config.jobs.supply?.schedule).toBe('* * * * *');
    expect(config.warnings).toEqual([
      expect.stringMatching(
        /jobs\.rewards is invalid, so this command reads it as not configured .*\n {2}- jobs\.rewards\.schedule = "every hour": not a valid cron/s,
      ),
    ]);
  });

  it('leaves out a misspelt job and an entry whose every item is wrong', () => {
    const path = join(dir(), 'c.json');
    writeFileSync(
      path,
      JSON.stringify({
        jobs: {
          rewardz: {},
          signatures: {
            schedule: '* * * * *',
            txHashes: ['2oxtFTU5N5o6vQXihy727Bx8CVPAiC1A2oxtFTU5N5o6vQXih'],
          },
        },
      }),
    );
    const config = loadConfig({ env: {}, configPath: path, reads: { invalidJobs: 'warn' } });
    // Without its one hash the section would be invalid (at least one): it is left out.
    expect(config.jobs.signatures).toBeUndefined();
    expect(config.warnings.map((w) => w.split(':')[1]?.trim()).sort()).toEqual([
      'jobs.rewardz is invalid, so this command reads it as not configured (start, run and config check refuse it until it is fixed)',
      'jobs.signatures is invalid, so this command reads it as not configured (start, run and config check refuse it until it is fixed)',
    ]);
    expect(config.warnings.find((w) => w.includes('rewardz'))).toMatch(/- jobs\.rewardz: unknown key/);
  });

  it('still refuses a section every command reads (service), naming the key', () => {
    const path = join(dir(), 'c.json');
    writeFileSync(path, JSON.stringify({ service: { timezone: 'Mars/Olympus' }, jobs: { rewardz: {} } }));
    const err = refusal(() => loadConfig({ env: {}, configPath: path, reads: { invalidJobs: 'warn' } }));
    expect(err.message).toContain('service.timezone = "Mars/Olympus"');
  });

  it('reads no config file when the command needs none (migrate, backup)', () => {
    const d = dir();
    const path = join(d, 'c.yaml');
    writeFileSync(path, 'jobs: [not, yaml: {');
    expect(() => loadConfig({ env: {}, configPath: path })).toThrow(ConfigError);
    const config = loadConfig({ env: {}, configPath: path, reads: { file: false } });
    expect(config.jobs.rewards).toBeUndefined();
    expect(config.warnings).toEqual([]);
  });

  it('reads the metrics web config only when asked to', () => {
    const d = dir();
    copyFileSync(starter010, join(d, 'unused.yaml'));
    const env = { METRICS_WEB_CONFIG: join(d, 'missing-web.yml') };
    expect(() => loadConfig({ env })).toThrow(/missing-web\.yml/);
    expect(loadConfig({ env, reads: { webConfig: false } }).metricsWebConfig).toBeUndefined();
  });
});
