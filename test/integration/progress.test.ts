import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAddress } from '../../src/demo-config.js';
import { type SimulatorHandle, startSimulator } from '../../src/simulator/index.js';
import { type CliResult, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
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

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs the CLI in a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
function runCliInTerminal(args: string[], env: Record<string, string>): Promise<CliResult> {
  const command = [process.execPath, '--import', 'tsx', 'src/cli.ts', ...args].map(shellQuote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        TERM: 'xterm',
        COLUMNS: '120',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('run progress', () => {
  it('draws a bar per rewards batch and human-readable logs in a terminal', async () => {
    const r = await runCliInTerminal(['-c', configPath, 'run', 'rewards'], {
      GLACIER_BASE_URL: sim.url,
      DATABASE_PATH: join(dir, 'terminal.db'),
      LOG_LEVEL: 'info',
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/rewards batch 1\/1 \(2 addresses\) \[[█░]+\] \d+\/12 pages/);
    expect(r.stdout).toMatch(/INFO.*: .*job run/);
    expect(r.stdout).not.toContain('{"level"');
  });

  it('writes JSON lines and no bar when the output is not a terminal', async () => {
    const r = await runCli(['-c', configPath, 'run', 'rewards'], {
      GLACIER_BASE_URL: sim.url,
      DATABASE_PATH: join(dir, 'piped.db'),
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(r.stdout + r.stderr).not.toContain('\u001b[');
    expect(r.stdout + r.stderr).not.toContain('pages');
  });
});
