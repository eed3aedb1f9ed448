import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/commands/demo-config.js';
import { type SimulatorHandle, startSimulator } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import { testDatabase } from '../support/store.js';
import { tempDir } from '../support/tmp.js';

let sim: SimulatorHandle;
let dir: string;
let cleanup: () => void;
let configPath: string;

beforeAll(async () => {
  // Each page takes a little while, so that a backfill lasts long enough for bars to be drawn.
  sim = await startSimulator({ port: 0, seed: 5, faults: { all: { latencyMs: [60, 80] } } });
  ({ dir, cleanup } = tempDir('glacier-progress-'));
  configPath = join(dir, 'glacier-collector.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      jobs: {
        rewards: {
          schedule: '0 * * * *',
          addresses: [demoAddress('progress-1'), demoAddress('progress-2')],
          pageSize: 20,
          maxPages: 12,
        },
      },
    }),
  );
});

afterAll(async () => {
  await sim?.close();
  cleanup?.();
});

const databases: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of databases.splice(0)) await c();
});

/** DATABASE_PATH or DATABASE_URL of a database of this test's own. */
async function databaseEnv() {
  const db = await testDatabase();
  databases.push(db.cleanup);
  return db.env;
}

describe('run progress', () => {
  it('draws a bar per rewards batch and human-readable logs in a terminal', async () => {
    const r = await runCli(
      ['-c', configPath, 'run', 'rewards'],
      { GLACIER_BASE_URL: sim.url, ...(await databaseEnv()) },
      { terminal: true },
    );
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/rewards batch 1\/1 \(2 addresses\) \[[█░]+\] \d+\/12 pages/);
    expect(r.stdout).toMatch(/INFO.*: .*job run/);
    expect(r.stdout).not.toContain('{"level"');
  });

  it('writes JSON lines and no bar when the output is not a terminal', async () => {
    const r = await runCli(['-c', configPath, 'run', 'rewards'], {
      GLACIER_BASE_URL: sim.url,
      ...(await databaseEnv()),
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(r.stdout + r.stderr).not.toContain('\u001b[');
    expect(r.stdout + r.stderr).not.toContain('pages');
  });
});
