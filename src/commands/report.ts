import type { Config } from '../config/index.js';
import { forTerminal } from '../escape/terminal.js';
import { DEFAULT_COMPOUNDED_INCOME, parseCompounded } from '../report/rewards-compounded.js';
import type { RewardsFormatName, SummaryPeriod } from '../report/rewards-format-names.js';
import { rewardsFormats } from '../report/rewards-formats.js';
import { parseRewardTypes } from '../report/rewards-subjects.js';
import { failUsage, openExistingStore } from './usage.js';

export interface RewardsFlags {
  from: string;
  to: string;
  currency?: string;
  address: string[];
  nodeId: string[];
  format?: RewardsFormatName;
  summary?: SummaryPeriod;
  rewardType: string[];
  includeDelegators?: boolean;
  allSubjects?: boolean;
  compounded?: string;
}

/** `report rewards`: the rewards of a range of UTC days with their value, for accounting. */
export async function reportRewards(config: Config, flags: RewardsFlags): Promise<void> {
  const [{ databaseSetting, printableDatabaseLocation }, report, summary] = await Promise.all([
    import('../config/index.js'),
    import('../report/rewards.js'),
    import('../report/rewards-summary.js'),
  ]);
  try {
    // Arguments first: a bad date is exit 2 whether or not there is a database yet.
    report.parseRange(flags.from, flags.to);
    const format = flags.format ?? (process.stdout.isTTY ? 'table' : 'csv');
    const chosen = rewardsFormats[format];
    if (flags.allSubjects && (flags.address.length || flags.nodeId.length)) {
      throw new report.ReportError(
        '--all-subjects with --address/--node-id: either name the subjects or take them all, not both',
      );
    }
    const notNode = flags.nodeId.find((id) => !id.startsWith('NodeID-'));
    if (notNode !== undefined) {
      throw new report.ReportError(
        `--node-id "${forTerminal(notNode)}": not a node id; a node id starts with "NodeID-" (an address goes to --address)`,
      );
    }
    const types = parseRewardTypes(flags.rewardType);
    if (!types.ok) throw new report.ReportError(forTerminal(types.message));
    const compounded = parseCompounded(flags.compounded, DEFAULT_COMPOUNDED_INCOME);
    if (!compounded.ok) throw new report.ReportError(forTerminal(compounded.message));
    if (flags.summary && format !== 'csv' && format !== 'table') {
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
        addresses: [...flags.address, ...flags.nodeId],
        // The summary counts income: the same rows as the tax-tool imports, pending ones counted.
        view: flags.summary ? 'income' : chosen.view,
        rewardTypes: flags.rewardType,
        includeDelegators: flags.includeDelegators,
        allSubjects: flags.allSubjects,
        compounded: flags.compounded,
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
      const leftOut = report.describeLeftOut(result);
      if (leftOut) console.error(leftOut);
      const restaked = report.describeRestaked(result, chosen.income && !flags.summary);
      if (restaked) console.error(restaked);
      const invalid = report.describeInvalid(result);
      if (invalid) console.error(invalid);
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof report.ReportError) failUsage(err.message);
    else throw err;
  }
}

export interface ValidationsFlags {
  nodeId: string[];
  from?: string;
  to?: string;
  format?: 'table' | 'csv' | 'json';
}

/** `report validations`: one row per validation of the stored node ids, with its reward and realized rate. */
export async function reportValidations(config: Config, flags: ValidationsFlags): Promise<void> {
  const [{ databaseSetting, printableDatabaseLocation }, rewards, report] = await Promise.all([
    import('../config/index.js'),
    import('../report/rewards.js'),
    import('../report/validations.js'),
  ]);
  try {
    const fromMs = flags.from === undefined ? undefined : rewards.parseDay(flags.from, '--from');
    const toMs = flags.to === undefined ? undefined : rewards.parseDay(flags.to, '--to');
    if (fromMs !== undefined && toMs !== undefined && toMs < fromMs) {
      throw new rewards.ReportError(`--to ${flags.to} is before --from ${flags.from}`);
    }
    const notNode = flags.nodeId.find((id) => !id.startsWith('NodeID-'));
    if (notNode !== undefined) {
      throw new rewards.ReportError(
        `--node-id "${forTerminal(notNode)}": not a node id; a node id starts with "NodeID-"`,
      );
    }
    const format = flags.format ?? (process.stdout.isTTY ? 'table' : 'csv');
    const store = await openExistingStore(config);
    if (!store) {
      throw new Error(
        `no database at ${printableDatabaseLocation(config)}: run the validators job first (${databaseSetting(config)} sets it)`,
      );
    }
    try {
      const result = await report.buildValidationsReport(store, {
        network: config.jobs.validators?.network,
        nodeIds: flags.nodeId,
        ...(fromMs !== undefined && { fromMs }),
        ...(toMs !== undefined && { toMs }),
      });
      const write = {
        table: report.formatValidationsTable,
        csv: report.formatValidationsCsv,
        json: report.formatValidationsJson,
      }[format];
      process.stdout.write(write(result));
      const empty = report.describeEmpty(result);
      if (empty) console.error(empty);
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof rewards.ReportError) failUsage(err.message);
    else throw err;
  }
}
