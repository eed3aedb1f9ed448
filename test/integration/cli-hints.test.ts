/** A hint the CLI prints says to type what was typed: the `-c <file>` it was started with kept. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe('printed hints keep -c', () => {
  it('config check and status name the config file they were given', async () => {
    const { dir, cleanup } = tempDir('glacier hints ');
    cleanups.push(cleanup);
    const config = join(dir, 'my config.yaml');
    writeFileSync(
      config,
      `service:\n  queuePrefix: hints${process.pid}\njobs:\n  supply:\n    schedule: "* * * * *"\n`,
    );
    const env = { DATABASE_PATH: join(dir, 'g.db') };
    const quoted = `-c '${config}'`;
    const check = await runCli(['-c', config, 'config', 'check'], env);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`${quoted} config check --print`);
    const status = await runCli(['-c', config, 'status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(`start it with \`[^\`]* -c '${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' start\``),
    );
  }, 120_000);
});
