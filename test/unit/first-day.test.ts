/** The first day's small things: what `run --help` lists, and the troubleshooting table's advice. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jobs } from '../../jobs/index.js';
import type { JobList } from '../../src/kernel/index.js';

// src/cli.ts runs its main() when imported: a harmless command line, its one line kept quiet (as docs-cli.test.ts).
const { argv, stdout } = process;
const write = stdout.write;
process.argv = [argv[0]!, 'glacier-collector', '--version'];
stdout.write = (() => true) as typeof stdout.write;
const { buildProgram } = await import('../../src/cli.js').finally(() => {
  process.argv = argv;
  stdout.write = write;
});

function runHelp(list: JobList): string {
  const run = buildProgram({ cli: 'glacier-collector', npmScript: undefined }, list).commands.find(
    (c) => c.name() === 'run',
  )!;
  let text = '';
  run.configureOutput({ writeOut: (s) => (text += s) });
  run.outputHelp();
  return text;
}

describe('run --help', () => {
  it('lists every job run takes, from the job list, with its config key where it differs', () => {
    const help = runHelp(jobs);
    const listed = help.split('Jobs (run any that the config file configures):\n')[1]!.trim().split('\n');
    expect(listed.map((l) => l.trim().split(' ')[0])).toEqual(
      jobs.filter((j) => j.scheduled).map((j) => j.name),
    );
    expect(help).toContain('usage-metrics (jobs.usageMetrics)');
    // A follow-up only the queue starts is not one to type.
    for (const j of jobs.filter((j) => !j.scheduled)) expect(listed.join('\n')).not.toContain(j.name);
  });

  it('follows the list: a job added there is listed', () => {
    const extra = { ...jobs[0]!, name: 'newjob', configKey: 'newJob' } as unknown as JobList[number];
    expect(runHelp([...jobs, extra])).toContain('  newjob (jobs.newJob)');
  });
});

describe('docs/operations.md troubleshooting', () => {
  it('reads a stream again with reset, not SQL', () => {
    const page = readFileSync(fileURLToPath(new URL('../../docs/operations.md', import.meta.url)), 'utf8');
    const row = page.split('\n').find((l) => l.startsWith('| a stream should be read again from the start'))!;
    expect(row).toContain('glacier-collector reset <job>');
    expect(row).not.toContain('DELETE FROM sync_state');
  });
});
