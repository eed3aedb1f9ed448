/**
 * The collector's own counters: per process, so with several processes Prometheus sums them
 * (`sum without (instance)`). Series of configured jobs and of every endpoint start at 0, so a
 * first failure shows in `increase()` instead of appearing as a new series at 1. They need no
 * store: the service creates them first and hands them, as one observer, to the client, the worker
 * and the scheduler; `createMetrics` adds them to its registry. Beside them, the disk watch that
 * `/readyz` reads, kept by the same observer.
 */
import { Counter, Histogram, type Metric, type Registry } from 'prom-client';
import { RETAINED_TABLES } from '../config/index.js';
import type { RunSummary } from '../kernel/index.js';
import { BACKEND_FAULT_CAUSES, type BackendFaultCause } from '../queue/backend-faults.js';
import { diskFullError } from '../store/index.js';
import { type AttemptEvent, endpointNames, endpoints, REJECT_REASONS } from '../upstream/index.js';

export const OUTCOMES = ['succeeded', 'failed'] as const;

export { FAILURE_REASONS, type FailureReason } from '../kernel/index.js';

/**
 * Request durations: the API answers most pages in 0.1–2 s; the rewards and usage endpoints can
 * take several seconds; an attempt times out at 30 s by default.
 */
export const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What the service reports as it happens: every finished run, every upstream attempt, every skipped slot. */
export interface Observer {
  observeRun(s: RunSummary): void;
  observeAttempt(e: AttemptEvent): void;
  observeSkippedSlot(job: string): void;
  /** An error answer of the queue's backend (src/queue/backend-faults.ts), by cause. */
  observeBackendFault(cause: BackendFaultCause): void;
}

export interface OwnMetrics extends Observer {
  /** Adds the counters to a registry (the process's, `createMetrics`). */
  register(registry: Registry): void;
}

/** The counters of `jobs` (the configured ones), registered nowhere yet. */
export function createOwnMetrics(jobs: readonly string[]): OwnMetrics {
  const registers: Registry[] = [];
  const runs = new Counter({
    name: 'glacier_job_runs_total',
    help: 'Job runs finished by this process, per job and outcome (succeeded, failed).',
    labelNames: ['job_name', 'outcome'],
    registers,
  });
  const failures = new Counter({
    name: 'glacier_job_failures_total',
    help: 'Failed job runs of this process, per job and reason (rate_limited, client_error, server_error, network, malformed_response, aborted, other).',
    labelNames: ['job_name', 'reason'],
    registers,
  });
  const rows = new Counter({
    name: 'glacier_job_rows_written_total',
    help: 'Rows written (new or changed) by the job runs of this process.',
    labelNames: ['job_name'],
    registers,
  });
  const pruned = new Counter({
    name: 'glacier_rows_pruned_total',
    help: 'Rows the maintenance runs of this process deleted by retention, per table.',
    labelNames: ['table'],
    registers,
  });
  const rejected = new Counter({
    name: 'glacier_records_rejected_total',
    help: 'Upstream records the job runs of this process set aside (rejected_records), each counted once, per job and reason (schema, bounds).',
    labelNames: ['job_name', 'reason'],
    registers,
  });
  const dropped = new Counter({
    name: 'glacier_rejected_records_dropped_total',
    help: "Upstream records the job runs of this process would have set aside beyond the run's cap (setAside.maxRecordsPerRun, maxBytesPerRun): counted, not kept, per job.",
    labelNames: ['job_name'],
    registers,
  });
  const skipped = new Counter({
    name: 'glacier_job_skipped_slots_total',
    help: "Scheduled slots skipped because the job's previous run was still active.",
    labelNames: ['job_name'],
    registers,
  });
  const requests = new Counter({
    name: 'glacier_upstream_requests_total',
    help: 'HTTP attempts to the Data API, per endpoint and status code ("none": no answer, e.g. a connection fault or timeout).',
    labelNames: ['endpoint', 'code'],
    registers,
  });
  const retries = new Counter({
    name: 'glacier_upstream_retries_total',
    help: 'Failed attempts that the client retried, per endpoint.',
    labelNames: ['endpoint'],
    registers,
  });
  const rateLimited = new Counter({
    name: 'glacier_upstream_rate_limited_total',
    help: 'Answers 429 Too Many Requests, per endpoint.',
    labelNames: ['endpoint'],
    registers,
  });
  const computeUnits = new Counter({
    name: 'glacier_upstream_compute_units_total',
    help: "Compute units spent, per endpoint: each answered attempt at its endpoint's cost (as the API charges).",
    labelNames: ['endpoint'],
    registers,
  });
  const backendFaults = new Counter({
    name: 'glacier_queue_backend_faults_total',
    help: "Error answers of the queue's backend seen by this process, per cause (oom, readonly, busy, tls, sentinel, other): Redis refusing writes at maxmemory, a failed TLS handshake, a sentinel's invalid answer. Connection losses are not counted here.",
    labelNames: ['cause'],
    registers,
  });
  const duration = new Histogram({
    name: 'glacier_upstream_request_duration_seconds',
    help: 'Duration of HTTP attempts to the Data API, per endpoint.',
    labelNames: ['endpoint'],
    buckets: DURATION_BUCKETS,
    registers,
  });

  for (const job of jobs) {
    for (const outcome of OUTCOMES) runs.inc({ job_name: job, outcome }, 0);
    rows.inc({ job_name: job }, 0);
    skipped.inc({ job_name: job }, 0);
    for (const reason of REJECT_REASONS) rejected.inc({ job_name: job, reason }, 0);
    dropped.inc({ job_name: job }, 0);
  }
  for (const table of Object.values(RETAINED_TABLES)) pruned.inc({ table }, 0);
  for (const cause of BACKEND_FAULT_CAUSES) backendFaults.inc({ cause }, 0);
  for (const endpoint of endpointNames) {
    retries.inc({ endpoint }, 0);
    rateLimited.inc({ endpoint }, 0);
    computeUnits.inc({ endpoint }, 0);
  }

  const all: Metric[] = [
    runs,
    failures,
    rows,
    pruned,
    rejected,
    dropped,
    skipped,
    requests,
    retries,
    rateLimited,
    computeUnits,
    backendFaults,
    duration,
  ];
  return {
    register(registry) {
      for (const metric of all) registry.registerMetric(metric);
    },
    observeRun(s) {
      runs.inc({ job_name: s.job, outcome: s.status });
      if (s.status === 'failed') failures.inc({ job_name: s.job, reason: s.failure?.reason ?? 'other' });
      rows.inc({ job_name: s.job }, s.rowsWritten);
      for (const [table, n] of Object.entries(s.rowsRemoved)) pruned.inc({ table }, n);
      for (const [reason, n] of Object.entries(s.rejected)) rejected.inc({ job_name: s.job, reason }, n);
      if (s.setAsideDropped) dropped.inc({ job_name: s.job }, s.setAsideDropped);
    },
    observeAttempt(e) {
      const endpoint = e.endpoint;
      requests.inc({ endpoint, code: e.status === undefined ? 'none' : String(e.status) });
      if (e.willRetry) retries.inc({ endpoint });
      if (e.status === 429) rateLimited.inc({ endpoint });
      // The same rule as the run's meter: an attempt that got a status was charged.
      if (e.status !== undefined) computeUnits.inc({ endpoint }, endpoints[endpoint].computeUnits);
      duration.observe({ endpoint }, e.durationMs / 1000);
    },
    observeSkippedSlot(job) {
      skipped.inc({ job_name: job });
    },
    observeBackendFault(cause) {
      backendFaults.inc({ cause });
    },
  };
}

/** One observer telling each of `observers` in turn, those that listen to that event. */
export function observeAll(...observers: Partial<Observer>[]): Observer {
  return {
    observeRun: (s) => {
      for (const o of observers) o.observeRun?.(s);
    },
    observeAttempt: (e) => {
      for (const o of observers) o.observeAttempt?.(e);
    },
    observeSkippedSlot: (job) => {
      for (const o of observers) o.observeSkippedSlot?.(job);
    },
    observeBackendFault: (cause) => {
      for (const o of observers) o.observeBackendFault?.(cause);
    },
  };
}

/** A full disk fails runs, not the service: `/readyz` says so until a run succeeds again. */
export interface DiskWatch extends Pick<Observer, 'observeRun'> {
  /** The message of the last run's full-disk failure; undefined once a run succeeded since. */
  diskFull(): string | undefined;
}

export function createDiskWatch(): DiskWatch {
  let full: string | undefined;
  return {
    observeRun(s) {
      // A run that succeeded has no error to look into.
      if (s.status === 'succeeded') full = undefined;
      else full = diskFullError(s.error)?.message ?? full;
    },
    diskFull: () => full,
  };
}
