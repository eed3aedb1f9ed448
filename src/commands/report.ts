import { type Command, Option } from 'commander';
import {
  type RewardsFormatName,
  rewardsFormatNames,
  rewardsFormats,
  SUMMARY_PERIODS,
  type SummaryPeriod,
} from '../report/rewards-formats.js';
import { failUsage, openExistingStore } from './usage.js';

interface RewardsFlags {
  from: string;
  to: string;
  currency?: string;
  address: string[];
  format?: RewardsFormatName;
  summary?: SummaryPeriod;
}

/** `report rewards`: the rewards of a range of UTC days with their value, for accounting. */
export function registerReport(program: Command): void {
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
      'only rewards of this address or node id; repeat it or separate with commas for several',
      (value: string, previous: string[]) => [...previous, ...value.split(',').filter(Boolean)],
      [],
    )
    .addOption(
      new Option(
        '--format <format>',
        `${Object.entries(rewardsFormats)
          .map(([name, f]) => `${name}: ${f.describe}`)
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
      const [{ loadConfig, databaseSetting, printableDatabaseLocation }, report, summary] = await Promise.all(
        [
          import('../config/index.js'),
          import('../report/rewards.js'),
          import('../report/rewards-summary.js'),
        ],
      );
      const config = loadConfig({ configPath: program.opts<{ config?: string }>().config });
      try {
        // Arguments first: a bad date is exit 2 whether or not there is a database yet.
        report.parseRange(flags.from, flags.to);
        const format = flags.format ?? (process.stdout.isTTY ? 'table' : 'csv');
        const chosen = rewardsFormats[format];
        if (flags.summary && chosen.income) {
          throw new report.ReportError(
            `--summary with --format ${format}: a summary is written as csv or table; drop --summary to write the ${format} import`,
          );
        }
        const store = await openExistingStore(config);
        if (!store) {
          throw new Error(
            `no database at ${printableDatabaseLocation(config)}: run the rewards job first (${databaseSetting(config)} sets it)`,
          );
        }
        try {
          const result = await report.buildRewardsReport(store, config.jobs.rewards, {
            from: flags.from,
            to: flags.to,
            currency: flags.currency,
            addresses: flags.address,
          });
          if (flags.summary) {
            const lines = summary.summarizeRewards(result, flags.summary);
            process.stdout.write(
              format === 'table'
                ? summary.formatSummaryTable(result, lines)
                : summary.formatSummaryCsv(result, lines),
            );
          } else {
            process.stdout.write(chosen.write(result));
          }
          const warning = report.describeUnpriced(result, { omitPending: chosen.income && !flags.summary });
          if (warning) console.error(warning);
        } finally {
          await store.close();
        }
      } catch (err) {
        if (err instanceof report.ReportError) failUsage(err.message);
        else throw err;
      }
    });
}
