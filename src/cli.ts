#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from 'commander';
import { configKeys, handlerFor, isJobName, jobNames, payloadFor } from '../jobs/index.js';
import { createApp, openConfiguredStore } from './app.js';
import { ConfigError, describeConfig, loadConfig } from './config/index.js';
import { buildPlan, formatPlan } from './plan.js';
import { runJob } from './runner.js';
import { type TierName, tierNames } from './upstream/endpoints.js';
import { packageVersion } from './version.js';

/** Exit codes: 0 success, 1 a job or command failed, 2 invalid configuration or usage. */
const EXIT_FAILURE = 1;
const EXIT_CONFIG = 2;

function load(opts: { config?: string }) {
  return loadConfig({ configPath: opts.config });
}

export function buildProgram(): Command {
  const program = new Command()
    .name('glacier-collector')
    .description('Collects Avalanche Data API (Glacier) data into SQLite on cron schedules.')
    .version(packageVersion())
    .showHelpAfterError()
    .option(
      '-c, --config <path>',
      'config file, YAML or JSON (default: $GLACIER_CONFIG, else ./glacier-collector.yaml)',
    );

  program
    .command('run')
    .description(`run one job once, in-process, without Redis (${jobNames.join(', ')})`)
    .argument('<job>', 'job name', (name: string) => {
      if (!isJobName(name))
        throw new InvalidArgumentError(`unknown job "${name}"; jobs: ${jobNames.join(', ')}`);
      return name;
    })
    .option('--no-wait', 'exports: start and poll once instead of waiting for the files')
    .action(async (name: string, opts: { wait: boolean }) => {
      if (!isJobName(name)) return;
      const config = load(program.opts());
      const payload = payloadFor(name, config);
      if (!payload) {
        throw new ConfigError(
          `jobs.${configKeys[name]}: not configured; add it to the config file to run "${name}"`,
        );
      }
      const app = createApp(config);
      const abort = new AbortController();
      const onSignal = () => abort.abort(new Error('interrupted'));
      process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      try {
        const runPayload = name === 'exports' ? { ...payload, wait: opts.wait } : payload;
        const summary = await runJob(name, handlerFor(name), runPayload, app, { signal: abort.signal });
        if (summary.status === 'failed') process.exitCode = EXIT_FAILURE;
      } finally {
        process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
        app.close();
      }
    });

  program
    .command('migrate')
    .description('create or upgrade the database schema, then exit')
    .action(() => {
      const config = load(program.opts());
      openConfiguredStore(config).close();
      console.log(`database ${config.databasePath} is up to date`);
    });

  const configCommand = program.command('config').description('configuration tools');
  configCommand
    .command('check')
    .description('validate the configuration and print it, secrets masked')
    .action(() => {
      const config = load(program.opts());
      console.log(JSON.stringify(describeConfig(config), null, 2));
    });

  program
    .command('plan')
    .description('compute units per day that the configured schedules will cost, against a tier')
    .addOption(
      new Option('--tier <tier>', 'rate-limit tier to compare with').choices(tierNames).default(undefined),
    )
    .option('--json', 'print the plan as JSON')
    .action((opts: { tier?: TierName; json?: boolean }) => {
      const config = load(program.opts());
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
    .action(async (opts: { port: string; host: string; seed: string; faults?: string }) => {
      const { simulatorOptionsFromFlags, startSimulator } = await import('./simulator/index.js');
      const sim = await startSimulator(await simulatorOptionsFromFlags(opts));
      console.log(
        `Data API simulator listening on ${sim.url} (seed ${opts.seed}${opts.faults ? `, faults ${opts.faults}` : ''})`,
      );
      const stop = () => void sim.close().then(() => process.exit(0));
      process.once('SIGINT', stop).once('SIGTERM', stop);
    });

  program
    .command('demo')
    .description(
      'try the collector offline: a simulator, a demo config, every job run twice, and the results',
    )
    .option('--database <path>', 'where to write the demo database', './data/demo.db')
    .action(async (opts: { database: string }) => {
      const { runDemo } = await import('./demo.js');
      await runDemo({ databasePath: opts.database });
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exitCode = EXIT_CONFIG;
      return;
    }
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = EXIT_FAILURE;
  }
}

await main(process.argv);
