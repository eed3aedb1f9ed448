import type { Config, JobsConfig } from '../config/index.js';
import type { EndpointName } from '../upstream/endpoints.js';
import type { JobContext, JobHandler, JobResult } from './run.js';

/** Requests of one run, per endpoint (compute units follow from endpoints.ts). */
export type Calls = Partial<Record<EndpointName, number>>;

/** What one run costs: every stream up to date (one page each) and every stream reading `maxPages`. */
export interface RunCost {
  steady: Calls;
  worst: Calls;
  note?: string | undefined;
}

/** The config section of a job, with the keys every section has. */
type Section<K extends keyof JobsConfig> = NonNullable<JobsConfig[K]>;

/** Free-form job data: flags of `run` (`wait`), a continuation's args (`operationId`). Never a secret. */
export type JobArgs = Readonly<Record<string, unknown>>;

/**
 * Everything about one job, declared once in its file under jobs/: the CLI (`run`), the scheduler,
 * the worker and `plan` all read it.
 */
export interface Job {
  /** As the CLI, the queue and `job_runs` know it. */
  readonly name: string;
  /** Its section under `jobs:` in the config file. */
  readonly configKey: keyof JobsConfig;
  /** Fired by the scheduler on the section's `schedule`; false for follow-ups only the queue starts. */
  readonly scheduled: boolean;
  /** The section's schedule settings, when the job is configured. */
  schedule(config: Config): { schedule: string; enabled: boolean; runOnStart: boolean } | undefined;
  /** The job bound to a config (and job data): undefined when its section is absent. */
  prepare(config: Config, args?: JobArgs): PreparedRun | undefined;
  /** Requests per run, for `plan` (scheduled jobs only). */
  cost(config: Config): RunCost | undefined;
}

export interface PreparedRun {
  /** The handler called with its payload; what `runJob` runs. */
  run(ctx: JobContext): Promise<JobResult | undefined | void>;
}

export interface JobSpec<K extends keyof JobsConfig, P> {
  name: string;
  configKey: K;
  handler: JobHandler<P>;
  /** The handler's payload from its config section and the job data. */
  payload: (section: Section<K>, args: JobArgs) => P;
  /** Omit for a job only the queue starts. */
  cost?: (section: Section<K>) => RunCost;
  /** @defaultValue true */
  scheduled?: boolean;
}

/** Declares a job; the payload is typed against its own section, so no caller needs a cast. */
export function defineJob<K extends keyof JobsConfig, P>(spec: JobSpec<K, P>): Job {
  const sectionOf = (config: Config) => config.jobs[spec.configKey] as Section<K> | undefined;
  return {
    name: spec.name,
    configKey: spec.configKey,
    scheduled: spec.scheduled ?? true,
    schedule(config) {
      const section = sectionOf(config);
      if (!section) return undefined;
      const { schedule, enabled, runOnStart } = section;
      return { schedule, enabled, runOnStart };
    },
    prepare(config, args = {}) {
      const section = sectionOf(config);
      if (!section) return undefined;
      const payload = spec.payload(section, args);
      return { run: (ctx) => spec.handler(payload, ctx) };
    },
    cost(config) {
      const section = sectionOf(config);
      return section && spec.cost ? spec.cost(section) : undefined;
    },
  };
}

/** A config section without the keys that only say when to run it. */
export function withoutSchedule<S extends { schedule: string; enabled: boolean; runOnStart: boolean }>(
  section: S,
): Omit<S, 'schedule' | 'enabled' | 'runOnStart'> {
  const { schedule: _s, enabled: _e, runOnStart: _r, ...rest } = section;
  return rest;
}
