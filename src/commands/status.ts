import type { Command } from 'commander';
import type { JobList } from '../kernel/index.js';
import { historyOption } from './history-option.js';
import { openExistingStore } from './usage.js';

/** `status`: rows per table, each job's last and next run, today's compute units, exports in flight. */
export function registerStatus(program: Command, jobList: () => Promise<JobList>): void {
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
      const [{ loadConfig }, { collectStatus, formatStatus }, { probeService }] = await Promise.all([
        import('../config/index.js'),
        import('../report/status.js'),
        import('../queue/probe.js'),
      ]);
      const config = loadConfig({ configPath: program.opts<{ config?: string }>().config });
      // Status reads; it does not create a database that does not exist yet.
      const store = await openExistingStore(config);
      try {
        const service = await probeService(config.redisUrl, config.service.queuePrefix);
        const status = await collectStatus(await jobList(), config, store, new Date(), {
          history: flags.history,
          service,
        });
        process.stdout.write(flags.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
      } finally {
        await store?.close();
      }
    });
}
