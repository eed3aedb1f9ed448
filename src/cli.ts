#!/usr/bin/env node
/**
 * The command line. Only commander is imported up front: every command imports what it needs when
 * it runs, so `--help` and `config check` start fast (a benchmark figure).
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import { historyOption } from './commands/history-option.js';
import type { RewardsFlags, ValidationsFlags } from './commands/report.js';
import type { SimulatorFlags } from './commands/simulator.js';
import { UsageError } from './commands/usage.js';
import type { Config, ConfigReads } from './config/index.js';
import { type Invocation, readInvocation, shellWord } from './config/invocation.js';
import { maskPasswordParameters } from './config/url-password.js';
import { forTerminal } from './escape/terminal.js';
import type { JobList } from './kernel/index.js';
import { JOB_NAMES } from './kernel/job-names.js';
import { type Role, roles } from './queue/jobs.js';
import { rewardsFormatHelp, rewardsFormatNames, SUMMARY_PERIODS } from './report/rewards-format-names.js';
import { versionReport } from './runtime/version.js';
import { type TierName, tierNames } from './upstream/endpoints.js';

/** Exit codes: 0 success, 1 a job or command failed, 2 invalid configuration or usage. */
const EXIT_FAILURE = 1;
const EXIT_CONFIG = 2;

/**
 * What a command reads of the configuration (src/config/load.ts `ConfigReads`): the commands that
 * neither call the API nor run a job are never refused for a job section they do not run; those that
 * open only the store read no config file at all.
 */
const READS_ONLY = { invalidJobs: 'warn', webConfig: false } as const satisfies ConfigReads;
const STORE_ONLY = { file: false, invalidJobs: 'warn', webConfig: false } as const satisfies ConfigReads;

async function load(opts: { config?: string }, reads?: ConfigReads): Promise<Config> {
  const { loadConfig } = await import('./config/index.js');
  const config = loadConfig({ configPath: opts.config, reads });
  // Likely mistakes that are not refused (an unknown GLACIER_ variable): said once, on stderr.
  for (const warning of config.warnings) console.error(`warning: ${warning}`);
  return config;
}

/** The job list lives in jobs/ (which stands on src/): only this entry point imports it. */
async function jobList(): Promise<JobList> {
  return (await import('../jobs/index.js')).jobs;
}

export function buildProgram(
  invocation: Invocation = readInvocation(),
  /** The job list, when the command line needs it for help (`run --help` lists the runnable jobs). */
  known?: JobList,
): Command {
  const cli = invocation.cli;
  /** The command as it was started, with the `-c` it was given: what a printed hint says to type. */
  const cliAsStarted = (): string => {
    const config = (program.opts() as { config?: string }).config;
    return config === undefined ? cli : `${cli} -c ${shellWord(config)}`;
  };
  const program = new Command()
    .name('glacier-collector')
    .description('Collects Avalanche Data API (Glacier) data into SQLite or PostgreSQL on cron schedules.')
    // Commander's .version() takes the text up front; it reads package.json files, so it is read
    // only when asked for (`--help` and every command start without it).
    .addOption(new Option('-V, --version', 'the version, with Node, the store drivers and the build commit'))
    .on('option:version', () => {
      const text = versionReport();
      process.stdout.write(`${text}\n`);
      throw new CommanderError(0, 'commander.version', text);
    })
    .showHelpAfterError()
    .exitOverride()
    .option(
      '-c, --config <path>',
      'config file, YAML or JSON (default: $GLACIER_CONFIG, else ./glacier-collector.yaml)',
    );

  program
    .command('start')
    .description(
      'run the collector as a service: cron triggers, BullMQ workers on Redis, /healthz /readyz /metrics',
    )
    .addOption(
      new Option('--role <role>', 'run one role only, so several processes share one Redis')
        .choices(roles)
        .default('all'),
    )
    .action(async (opts: { role: Role }) => {
      const config = await load(program.opts());
      const { start } = await import('./commands/start.js');
      await start(config, await jobList(), { ...opts, invocation: { ...invocation, cli: cliAsStarted() } });
    });

  program
    .command('run')
    .description(
      'run one job once, in-process, without Redis (any scheduled job of jobs/; an unknown name lists them)',
    )
    .argument('<job>', 'job name, or its config key')
    .option('--no-wait', 'exports: start and poll once instead of waiting for the files')
    .option('--reload <export>', "exports: read that definition's unsupported or failed files again")
    .option(
      '--retry-rejected',
      'check the records the job set aside again with this version, and store those that pass (no request to the API)',
    )
    .addHelpText('after', () => (known ? runnableJobsHelp(known) : ''))
    .action(async (name: string, opts: { wait: boolean; reload?: string; retryRejected?: boolean }) => {
      const jobs = known ?? (await jobList());
      const { run, runnableJob, unknownJobMessage } = await import('./commands/run.js');
      // One line (no help after it): the closest name says what to type.
      if (!runnableJob(jobs, name)) throw new UsageError(unknownJobMessage(jobs, name));
      if (opts.reload && name !== JOB_NAMES.exports)
        program.error('error: --reload applies to "run exports" only');
      if (opts.reload && opts.retryRejected)
        program.error('error: --reload and --retry-rejected are two runs: one at a time');
      await run(await load(program.opts()), jobs, name, opts);
    });

  program
    .command('reset')
    .description(
      "re-collect a job's streams from scratch: remove their cursors (dry run without --yes: what each holds, what the next run fetches and costs)",
    )
    .argument('<job>', 'job name (a job that keeps cursors; any other lists them)')
    .option(
      '--scope <scope>',
      'only this stream (as the dry run lists them); repeat it for several',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option('--yes', 'remove the cursors (without it: a dry run that changes nothing)')
    .option('--json', 'print it as JSON, for scripts')
    .action(async (name: string, flags: { scope: string[]; yes?: boolean; json?: boolean }) => {
      const jobs = await jobList();
      const { reset } = await import('./commands/reset.js');
      await reset(await load(program.opts()), jobs, name, { ...flags, cli });
    });

  program
    .command('migrate')
    .description('create or upgrade the database schema, then exit')
    .action(async () => {
      const config = await load(program.opts(), STORE_ONLY);
      const { migrate } = await import('./commands/config.js');
      await migrate(config);
    });

  program
    .command('migrate-store')
    .description(
      'copy every table of one store into another (a SQLite file into PostgreSQL, or back); safe to run again',
    )
    .requiredOption('--from <store>', 'source: a SQLite path or a postgres:// URL')
    .requiredOption('--to <store>', 'target: a SQLite path or a postgres:// URL (migrated first)')
    .option('--batch-size <rows>', 'rows per batch and per target transaction, 1 to 100000 (default: 1000)')
    .option(
      '--merge',
      'copy into a target that holds data and is not an earlier copy of this source (its rows win where a key is in both)',
    )
    .action(async (flags: { from: string; to: string; batchSize?: string; merge?: boolean }) => {
      const { migrateStore } = await import('./commands/migrate-store.js');
      await migrateStore(flags);
    });

  const configCommand = program.command('config').description('configuration tools');
  configCommand
    .command('check')
    .description(
      'validate the configuration and summarize it: jobs and schedules, store, Redis, budget, metrics address',
    )
    .option('--print', 'print the whole resolved configuration as JSON instead, secrets masked')
    .action(async (opts: { print?: boolean }) => {
      const config = await load(program.opts());
      const { checkConfig, checkQueuePrefix } = await import('./commands/config.js');
      await checkQueuePrefix(config);
      checkConfig(config, await jobList(), { ...opts, cli: cliAsStarted() });
    });
  configCommand
    .command('init')
    .description('write a commented starter config file (default ./glacier-collector.yaml); never overwrites')
    .argument('[path]', 'where to write it')
    .action(async (path: string | undefined) => {
      const { initConfig } = await import('./commands/config.js');
      initConfig(path, cli);
    });

  program
    .command('plan')
    .description('compute units per day that the configured schedules will cost, against a tier')
    .addOption(new Option('--tier <tier>', 'rate-limit tier to compare with').choices(tierNames))
    .option('--json', 'print the plan as JSON')
    .addOption(historyOption())
    .action(async (opts: { tier?: TierName; json?: boolean; history?: string }) => {
      const config = await load(program.opts());
      const { printPlan } = await import('./commands/plan.js');
      printPlan(await jobList(), config, opts);
    });

  program
    .command('simulator')
    .description('serve the local Data API simulator')
    .option('-p, --port <port>', 'port', '4010')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'data seed', '1')
    .option('--faults <file>', 'fault-injection JSON file')
    .option('--public-url <url>', 'base of export download URLs (e.g. http://simulator:4010 in compose)')
    .action(async (opts: SimulatorFlags) => {
      const { serveSimulator } = await import('./commands/simulator.js');
      await serveSimulator(opts, cli);
    });

  program
    .command('demo')
    .description(
      'try the whole service offline against the simulator, on schedules of seconds (needs Redis; without one, every job runs twice in-process)',
    )
    .option('--database <path>', 'where to write the demo database', './data/demo.db')
    .option('--duration <seconds>', 'how long the service runs before the demo stops', '60')
    .action(async (opts: { database: string; duration: string }) => {
      const seconds = Number(opts.duration);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
        return program.error(
          `error: --duration must be a number of seconds from 1 to 86400, got '${opts.duration}'`,
          {
            exitCode: EXIT_CONFIG,
          },
        );
      }
      const [{ runDemo }, { withSignalAbort }] = await Promise.all([
        import('./commands/demo.js'),
        import('./commands/signals.js'),
      ]);
      const jobs = await jobList();
      await withSignalAbort((signal) =>
        runDemo({ jobs, databasePath: opts.database, durationMs: seconds * 1000, signal, cli }),
      );
    });

  const report = program.command('report').description('reports from the collected data');
  report
    .command('rewards')
    .description(
      'every reward whose end time falls between two UTC days (both included): date, address, node id, type, ' +
        'amount in AVAX, the historical price stored with it, and its value rounded to cents (half even)',
    )
    .requiredOption('--from <date>', 'first UTC day, YYYY-MM-DD (included)')
    .requiredOption('--to <date>', 'last UTC day, YYYY-MM-DD (included)')
    .option('--currency <code>', 'which stored prices to use (default: jobs.rewards.currency, else usd)')
    .option(
      '--address <id>',
      'only rewards of this address or node id, configured or not (no longer configured); repeat it or separate with commas for several',
      (value: string, previous: string[]) => [...previous, ...value.split(',').filter(Boolean)],
      [],
    )
    .option(
      '--node-id <id>',
      'only rewards of this node id, configured or not; repeat it or separate with commas for several',
      (value: string, previous: string[]) => [...previous, ...value.split(',').filter(Boolean)],
      [],
    )
    .option(
      '--reward-type <types>',
      'only rewards of these types, in every format: VALIDATOR, VALIDATOR_FEE, DELEGATOR (comma separated)',
      (value: string, previous: string[]) => [...previous, ...value.split(',').filter(Boolean)],
      [],
    )
    .option(
      '--include-delegators',
      "the income formats and --summary keep a configured node's rewards paid to its delegators (left out by default: not your income)",
    )
    .option(
      '--all-subjects',
      'keep the rewards of addresses and node ids no longer configured (left out by default)',
    )
    .option(
      '--compounded <when>',
      "when auto-renewed staking's compounded rewards are income: at-compounding (each cycle's end; the final reward then counts only what was not compounded before) or at-withdrawal (when paid out); default: jobs.rewards.compoundedIncome, else at-compounding",
    )
    .addOption(
      new Option(
        '--format <format>',
        `${Object.entries(rewardsFormatHelp)
          .map(([name, line]) => `${name}: ${line}`)
          .join('; ')}; default: table in a terminal, else csv`,
      ).choices(rewardsFormatNames),
    )
    .addOption(
      new Option(
        '--summary <period>',
        'instead of the rows: per UTC year and address, the count, AVAX received and value (csv or table)',
      ).choices(SUMMARY_PERIODS),
    )
    .action(async (flags: RewardsFlags) => {
      const config = await load(program.opts(), READS_ONLY);
      const { reportRewards } = await import('./commands/report.js');
      await reportRewards(config, flags);
    });

  report
    .command('validations')
    .description(
      'one row per Primary Network validation of the stored node ids: staking tx, start, end, days, stake, status, ' +
        'the reward the API promised, the reward paid (and the rewards collected for it), the delegation fee earned, ' +
        'the realized annual rate (reward / stake x 365 days / duration) and the last uptime seen',
    )
    .option(
      '--node-id <id>',
      'only validations of this node id; repeat it or separate with commas for several',
      (value: string, previous: string[]) => [...previous, ...value.split(',').filter(Boolean)],
      [],
    )
    .option('--from <date>', 'only validations still running on or after this UTC day, YYYY-MM-DD')
    .option('--to <date>', 'only validations started on or before this UTC day, YYYY-MM-DD')
    .addOption(
      new Option('--format <format>', 'table, csv or json; default: table in a terminal, else csv').choices([
        'table',
        'csv',
        'json',
      ]),
    )
    .action(async (flags: ValidationsFlags) => {
      const config = await load(program.opts(), READS_ONLY);
      const { reportValidations } = await import('./commands/report.js');
      await reportValidations(config, flags);
    });

  program
    .command('status')
    .description(
      "a summary from the database, the config and Redis: the service's processes (heartbeats) and queue, each " +
        "job's last run, outcome, next run and whether it is overdue, compute units spent today (UTC) against the " +
        'budget, exports in flight, rows per table',
    )
    .option('--json', 'print it as JSON, for scripts')
    .addOption(historyOption())
    .action(async (flags: { json?: boolean; history?: string }) => {
      const config = await load(program.opts(), READS_ONLY);
      const { showStatus } = await import('./commands/status.js');
      await showStatus(config, await jobList(), { ...flags, cli: cliAsStarted() });
    });

  program
    .command('backup')
    .description(
      'copy the SQLite database to <file>, consistently, while the service runs (PostgreSQL: use pg_dump)',
    )
    .argument('<file>', 'the copy to write; an existing file is refused unless --force')
    .option('--force', 'replace <file> if it exists (only once the new copy is complete)')
    .action(async (file: string, flags: { force?: boolean }) => {
      const config = await load(program.opts(), STORE_ONLY);
      const { backup } = await import('./commands/backup.js');
      await backup(config, file, flags);
    });

  program
    .command('completion')
    .description(
      'print a shell completion script of the glacier-collector command on PATH (`npm link` puts it there from a clone): source <(glacier-collector completion bash)',
    )
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action(async (shell: 'bash' | 'zsh') => {
      const { completionScript } = await import('./commands/completion.js');
      const names = (await jobList()).filter((j) => j.scheduled).map((j) => j.name);
      process.stdout.write(completionScript(program, shell, { run: names }, { cli }));
    });

  return program;
}

/** `run --help`'s list: every job `run` takes, from the job list (its config key when it differs). */
function runnableJobsHelp(jobs: JobList): string {
  const lines = jobs
    .filter((j) => j.scheduled)
    .map((j) => `  ${j.name}${j.configKey !== j.name ? ` (jobs.${j.configKey})` : ''}`);
  return `\nJobs (run any that the config file configures):\n${lines.join('\n')}\n`;
}

export async function main(argv: string[]): Promise<void> {
  try {
    // `run` needs the job list anyway (its help lists it): the definitions only, no handler.
    const known = argv.slice(2).includes('run') ? await jobList() : undefined;
    await buildProgram(readInvocation(), known).parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were printed by commander.
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_CONFIG;
      return;
    }
    // An error may quote what the API or a file said: its escape sequences are shown, not run; a URL
    // it quotes keeps no password parameter's value.
    const message = maskPasswordParameters(err instanceof Error ? err.message : String(err));
    const text = message.split('\n').map(forTerminal).join('\n');
    console.error(text);
    process.exitCode =
      err instanceof Error && (err.name === 'ConfigError' || err.name === 'UsageError')
        ? EXIT_CONFIG
        : EXIT_FAILURE;
  }
}

await main(process.argv);
