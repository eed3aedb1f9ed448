/** `status`: the service, each job's last and next run, today's compute units, exports, the tables. */
import type { Config } from '../config/index.js';
import type { JobList } from '../kernel/index.js';
import { probeService } from '../queue/probe.js';
import { collectStatus, formatStatus } from '../report/status.js';
import { openExistingStore } from './usage.js';

export async function showStatus(
  config: Config,
  jobs: JobList,
  flags: { json?: boolean | undefined; history?: string | undefined; cli?: string | undefined },
): Promise<void> {
  // Status reads; it does not create a database that does not exist yet.
  const store = await openExistingStore(config);
  try {
    const service = await probeService(config);
    const status = await collectStatus(jobs, config, store, new Date(), { history: flags.history, service });
    process.stdout.write(
      flags.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status, { cli: flags.cli }),
    );
  } finally {
    await store?.close();
  }
}
