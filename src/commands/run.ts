/** `run <job>`: one job once, in-process, without Redis; its continuations run here too. */
import { type Config, ConfigError } from '../config/index.js';
import { findJob, type JobList, runJob } from '../kernel/index.js';
import { createApp } from '../service/app.js';
import { createTerminalProgress } from '../terminal/progress.js';
import { withSignalAbort } from './signals.js';

/** The name of a job `run` accepts, or undefined (only scheduled jobs: follow-ups are the queue's). */
export function runnableJob(jobs: JobList, name: string) {
  const job = findJob(jobs, name);
  return job?.scheduled ? job : undefined;
}

export async function run(
  config: Config,
  jobs: JobList,
  name: string,
  opts: { wait: boolean; reload?: string | undefined },
): Promise<void> {
  const job = runnableJob(jobs, name);
  if (!job) throw new ConfigError(`unknown job "${name}"`);
  if (!job.schedule(config)) {
    throw new ConfigError(
      `jobs.${job.configKey}: not configured; add it to the config file to run "${name}"`,
    );
  }
  const terminal = createTerminalProgress({ level: config.logLevel });
  try {
    const app = await createApp(config, { ...(terminal.log && { log: terminal.log }) });
    try {
      const summary = await withSignalAbort((signal) =>
        runJob(job, app, {
          config,
          jobs,
          signal,
          progress: terminal.progress,
          followUps: opts.wait ? 'until-done' : 'once',
          ...(opts.reload && { args: { reload: opts.reload } }),
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
