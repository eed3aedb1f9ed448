#!/usr/bin/env node
/**
 * The command line. Only commander is imported up front: every command imports what it needs when
 * it runs, so `--help` and `config check` start fast (a benchmark figure).
 */
import { Command, CommanderError, Option } from 'commander';
import { registerBackup } from './commands/backup.js';
import { registerReport } from './commands/report.js';
import { registerStatus } from './commands/status.js';
import type { Config } from './config/index.js';
import { type Role, roles } from './queue/jobs.js';
import { packageVersion } from './runtime/version.js';
import type { App } from './service/app.js';
import { type TierName, tierNames } from './upstream/endpoints.js';

/** Exit codes: 0 success, 1 a job or command failed, 2 invalid configuration or usage. */
const EXIT_FAILURE = 1;
const EXIT_CONFIG = 2;

async function load(opts: { config?: string }): Promise<Config> {
  const { loadConfig } = await import('./config/index.js');
  return loadConfig({ configPath: opts.config });
}

/** Resolves on the first SIGINT/SIGTERM; a second one exits at once. */
function untilSignal(onSecond: () => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals) => {
      process.off('SIGINT', first).off('SIGTERM', first);
      process.once('SIGINT', onSecond).once('SIGTERM', onSecond);
      resolve(signal);
    };
    process.on('SIGINT', first).on('SIGTERM', first);
  });
}

export function buildProgram(): Command {
  const program = new Command()
    .name('glacier-collector')
    .description('Collects Avalanche Data API (Glacier) data into SQLite or PostgreSQL on cron schedules.')
    .version(packageVersion())
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
      const { startService } = await import('./service/service.js');
      const service = await startService(config, { role: opts.role });
      const signal = await untilSignal(() => {
        console.error('second signal: exiting at once');
        process.exit(EXIT_FAILURE);
      });
      service.app.log.info({ signal }, 'signal received');
      await service.close();
      process.exitCode = 0;
    });

  program
    .command('run')
    .description(
      'run one job once, in-process, without Redis (supply, transactions, rewards, usage-metrics, signatures, exports)',
    )
    .argument('<job>', 'job name')
    .option('--no-wait', 'exports: start and poll once instead of waiting for the files')
    .action(async (name: string, opts: { wait: boolean }) => {
      const { findJob, scheduledJobNames } = await import('../jobs/index.js');
      const job = findJob(name);
      if (!job?.scheduled) {
        return program.error(`error: unknown job "${name}"; jobs: ${scheduledJobNames.join(', ')}`, {
          exitCode: EXIT_CONFIG,
        });
      }
      const config = await load(program.opts());
      const prepared = job.prepare(config, { wait: opts.wait });
      const { ConfigError } = await import('./config/index.js');
      if (!prepared) {
        throw new ConfigError(
          `jobs.${job.configKey}: not configured; add it to the config file to run "${name}"`,
        );
      }
      const [{ createApp }, { runJob }, { createTerminalProgress }] = await Promise.all([
        import('./service/app.js'),
        import('./kernel/run.js'),
        import('./terminal/progress.js'),
      ]);
      const terminal = createTerminalProgress({ level: config.logLevel });
      const abort = new AbortController();
      const onSignal = () => abort.abort(new Error('interrupted'));
      process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      let app: App | undefined;
      try {
        app = await createApp(config, { log: terminal.log });
        const summary = await runJob(name, (_: undefined, ctx) => prepared.run(ctx), undefined, app, {
          signal: abort.signal,
          progress: terminal.progress,
        });
        if (summary.status === 'failed') process.exitCode = EXIT_FAILURE;
      } finally {
        terminal.stop();
        process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
        await app?.close();
      }
    });

  program
    .command('migrate')
    .description('create or upgrade the database schema, then exit')
    .action(async () => {
      const config = await load(program.opts());
      const [{ openConfiguredStore }, { printableDatabaseLocation }] = await Promise.all([
        import('./service/app.js'),
        import('./config/index.js'),
      ]);
      const store = await openConfiguredStore(config);
      await store.close();
      console.log(`database ${printableDatabaseLocation(config)} is up to date`);
    });

  program
    .command('migrate-store')
    .description(
      'copy every table of one store into another (a SQLite file into PostgreSQL, or back); safe to run again',
    )
    .requiredOption('--from <store>', 'source: a SQLite path or a postgres:// URL')
    .requiredOption('--to <store>', 'target: a SQLite path or a postgres:// URL (migrated first)')
    .option('--batch-size <rows>', 'rows per batch and per target transaction, 1 to 100000 (default: 1000)')
    .action(async (flags: { from: string; to: string; batchSize?: string }) => {
      const { migrateStore } = await import('./commands/migrate-store.js');
      await migrateStore(flags);
    });

  const configCommand = program.command('config').description('configuration tools');
  configCommand
    .command('check')
    .description('validate the configuration and print it, secrets masked')
    .action(async () => {
      const config = await load(program.opts());
      const { describeConfig } = await import('./config/index.js');
      console.log(JSON.stringify(describeConfig(config), null, 2));
    });

  program
    .command('plan')
    .description('compute units per day that the configured schedules will cost, against a tier')
    .addOption(new Option('--tier <tier>', 'rate-limit tier to compare with').choices(tierNames))
    .option('--json', 'print the plan as JSON')
    .action(async (opts: { tier?: TierName; json?: boolean }) => {
      const config = await load(program.opts());
      const { buildPlan, formatPlan } = await import('./commands/plan.js');
      const plan = buildPlan(config, opts.tier);
      console.log(opts.json ? JSON.stringify(plan, null, 2) : formatPlan(plan));
    });

  program
    .command('simulator')
    .description('serve the local Data API simulator')
    .option('-p, --port <port>', 'port', '4010')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'data seed', '1')
    .option('--faults <file>', 'fault-injection JSON file')
    .option('--public-url <url>', 'base of export download URLs (e.g. http://simulator:4010 in compose)')
    .action(
      async (opts: { port: string; host: string; seed: string; faults?: string; publicUrl?: string }) => {
        const { simulatorOptionsFromFlags, startSimulator } = await import('./simulator/index.js');
        const sim = await startSimulator(await simulatorOptionsFromFlags(opts));
        console.log(
          `Data API simulator listening on ${sim.url} (seed ${opts.seed}${opts.faults ? `, faults ${opts.faults}` : ''})`,
        );
        const stop = () => void sim.close().then(() => process.exit(0));
        process.once('SIGINT', stop).once('SIGTERM', stop);
      },
    );

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
      const { runDemo } = await import('./commands/demo.js');
      const abort = new AbortController();
      const stop = () => abort.abort();
      process.once('SIGINT', stop).once('SIGTERM', stop);
      try {
        await runDemo({ databasePath: opts.database, durationMs: seconds * 1000, signal: abort.signal });
      } finally {
        process.off('SIGINT', stop).off('SIGTERM', stop);
      }
    });

  registerReport(program);
  registerStatus(program);
  registerBackup(program);

  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were printed by commander.
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_CONFIG;
      return;
    }
    if (err instanceof Error && err.name === 'ConfigError') {
      console.error(err.message);
      process.exitCode = EXIT_CONFIG;
      return;
    }
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = EXIT_FAILURE;
  }
}

await main(process.argv);
