/** `run <job>`: one job once, in-process, without Redis; its continuations run here too. */
import { type Config, ConfigError } from '../config/index.js';
import { findJob, type JobList, runJob } from '../kernel/index.js';
import { closest } from '../runtime/closest.js';
import { createApp } from '../service/app.js';
import { listRejectedRecords } from '../store/index.js';
import { createTerminalProgress } from '../terminal/progress.js';
import { withSignalAbort } from './signals.js';

/**
 * The job `run` accepts under this name, or undefined (only scheduled jobs: follow-ups are the
 * queue's). Its config key is a name too: `usageMetrics` runs `usage-metrics`.
 */
export function runnableJob(jobs: JobList, name: string) {
  const job = findJob(jobs, name) ?? jobs.find((j) => j.configKey === name);
  return job?.scheduled ? job : undefined;
}

/** One line for a job name `run` does not know: the closest name, then every name. */
export function unknownJobMessage(jobs: JobList, name: string): string {
  const names = jobs.filter((j) => j.scheduled).map((j) => j.name);
  const keys = new Map(jobs.filter((j) => j.scheduled).map((j) => [j.configKey as string, j.name]));
  const near = closest(name, [...names, ...keys.keys()]);
  const hint = near ? ` (did you mean \`${keys.get(near) ?? near}\`?)` : '';
  return `error: unknown job "${name}"${hint}; jobs: ${names.join(', ')}`;
}

export async function run(
  config: Config,
  jobs: JobList,
  name: string,
  opts: { wait: boolean; reload?: string | undefined; retryRejected?: boolean | undefined },
): Promise<void> {
  const job = runnableJob(jobs, name);
  if (!job) throw new ConfigError(unknownJobMessage(jobs, name));
  if (!job.schedule(config)) {
    throw new ConfigError(
      `jobs.${job.configKey}: not configured; add it to the config file to run "${job.name}"`,
    );
  }
  // Nothing to retry is said in one line, not a failed run with nothing printed (exit 1, silent).
  if (opts.retryRejected && !job.restore) {
    console.log(`${job.name} sets no records aside: nothing to retry`);
    return;
  }
  const terminal = createTerminalProgress({
    level: config.logLevel,
    ...(config.logFormat && { prettyLogs: config.logFormat === 'pretty' }),
    color: config.color,
  });
  try {
    const app = await createApp(config, { ...(terminal.log && { log: terminal.log }) });
    try {
      if (opts.retryRejected && (await listRejectedRecords(app.store, job.name, '', 1)).length === 0) {
        console.log(`${job.name}: no records set aside: nothing to retry`);
        return;
      }
      const summary = await withSignalAbort((signal) =>
        runJob(job, app, {
          config,
          jobs,
          signal,
          progress: terminal.progress,
          followUps: opts.wait ? 'until-done' : 'once',
          ...(opts.reload && { args: { reload: opts.reload } }),
          ...(opts.retryRejected && { retryRejected: true }),
        }),
      );
      if (summary.status === 'failed') process.exitCode = 1;
    } finally {
      await app.close();
    }
  } finally {
    terminal.stop();
  }
}
