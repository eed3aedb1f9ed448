import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url);

describe('npm run trace:run', () => {
  it("lists the files one run of transactions executes, and they are docs/development.md's path of one run", async () => {
    // A run a minute at most after start-up (its slot), on the shared Redis.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/trace-run.ts', '--check'],
      { cwd: root, env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:6379' } },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`trace-run --check failed:\n${err.stderr ?? ''}${err.stdout ?? ''}`);
    });
    expect(stdout).toMatch(/^\d+ files on one run of transactions/);
    expect(stdout).toContain('jobs/transactions.ts');
  }, 120_000);
});
