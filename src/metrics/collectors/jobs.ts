import type { Config } from '../../config/index.js';
import type { JobList } from '../../kernel/index.js';
import { readJobSummaries, type Store } from '../../store/index.js';
import { longestGapSeconds } from '../schedule-gap.js';
import type { Scrape } from '../scrape.js';

/** The enabled scheduled jobs of the config, with their schedules. */
export function scheduledJobs(jobs: JobList, config: Config): { job: string; schedule: string }[] {
  return jobs
    .filter((j) => j.scheduled)
    .flatMap((j) => {
      const s = j.schedule(config);
      return s?.enabled ? [{ job: j.name, schedule: s.schedule }] : [];
    });
}

/** The jobs with a config section (enabled or not). */
export function configuredJobs(jobs: JobList, config: Config): string[] {
  return jobs.filter((j) => j.schedule(config)).map((j) => j.name);
}

/**
 * Each job's latest run and latest success, from job_summaries (kept by a trigger on job_runs, so
 * every process exposes them and a restart loses nothing), and the longest wait its schedule
 * allows: `time() - last_success > 2 * schedule_interval` is the "late" alert.
 */
export function defineJobsCollector(scrape: Scrape, store: Store, config: Config, jobs: JobList): void {
  const intervals = scheduledJobs(jobs, config).flatMap(({ job, schedule }) => {
    const gap = longestGapSeconds(schedule);
    return gap === undefined ? [] : [{ job, gap }];
  });
  const labelNames = ['job_name'];
  scrape.define({
    name: 'jobs',
    families: {
      interval: {
        name: 'glacier_job_schedule_interval_seconds',
        help: "Longest wait between two firings of the job's schedule (enabled jobs).",
        labelNames,
      },
      lastSuccess: {
        name: 'glacier_job_last_success_timestamp_seconds',
        help: 'When the latest successful run of the job finished, Unix seconds.',
        labelNames,
      },
      lastDuration: {
        name: 'glacier_job_last_run_duration_seconds',
        help: 'How long the latest finished run of the job took.',
        labelNames,
      },
      lastOk: {
        name: 'glacier_job_last_run_success',
        help: 'Whether the latest finished run of the job succeeded (1) or failed (0).',
        labelNames,
      },
    },
    async read(g) {
      const summaries = await readJobSummaries(store);
      for (const { job, gap } of intervals) g.interval.set({ job_name: job }, gap);
      for (const s of summaries) {
        const labels = { job_name: s.job };
        if (s.lastSuccessAt) g.lastSuccess.set(labels, Date.parse(s.lastSuccessAt) / 1000);
        g.lastDuration.set(labels, (Date.parse(s.lastFinishedAt) - Date.parse(s.lastStartedAt)) / 1000);
        g.lastOk.set(labels, s.lastStatus === 'succeeded' ? 1 : 0);
      }
    },
  });
}
