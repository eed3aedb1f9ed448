import type { Budget } from '../../config/index.js';
import { QUEUE_FAULTS, type QueueWatchReading } from '../../queue/backend.js';
import type { Scrape } from '../scrape.js';

export interface BudgetReading {
  perMinute: number;
  perDay: number;
  remainingMinute: number;
  remainingDay: number;
}

export type QueueCounts = Record<string, Record<string, number>>;

export interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string | undefined }>;
}

/** Read functions the service hands over once it has them (Redis, BullMQ); none until then. */
export interface ServiceReaders {
  budget?: () => Promise<BudgetReading>;
  queues?: () => Promise<QueueCounts>;
  readiness?: () => Promise<Readiness>;
  /** The PostgreSQL queue's watch (postgres-watch.ts): undefined on Redis. */
  queueWatch?: () => QueueWatchReading | undefined;
}

/**
 * The BullMQ states exposed; another state a read returns is left out (bounded labels). BullMQ 6 has
 * no `paused` state: the jobs of a paused queue count as waiting.
 */
export const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'failed',
  'completed',
  'prioritized',
  'waiting-children',
] as const;

/**
 * What the service knows at scrape time: the shared compute-unit budget (the limits from the config
 * until the limiter answers), the queues' job counts and the readiness checks.
 */
export function defineServiceCollectors(scrape: Scrape, budget: Budget, readers: ServiceReaders): void {
  scrape.define({
    name: 'budget',
    families: {
      limit: {
        name: 'glacier_upstream_budget_compute_units',
        help: 'The compute-unit budget every worker shares, per window (minute, day).',
        labelNames: ['window'],
      },
      remaining: {
        name: 'glacier_upstream_budget_remaining_compute_units',
        help: 'Compute units left in the current window (minute, day) of the shared budget.',
        labelNames: ['window'],
      },
    },
    async read(g) {
      const reading = await readers.budget?.();
      g.limit.set({ window: 'minute' }, reading?.perMinute ?? budget.computeUnitsPerMinute);
      g.limit.set({ window: 'day' }, reading?.perDay ?? budget.computeUnitsPerDay);
      if (!reading) return;
      g.remaining.set({ window: 'minute' }, reading.remainingMinute);
      g.remaining.set({ window: 'day' }, reading.remainingDay);
    },
  });

  scrape.define({
    name: 'queues',
    families: {
      jobs: {
        name: 'glacier_queue_jobs',
        help: 'Jobs per BullMQ queue and state (waiting, active, delayed, failed, ...), read at scrape time.',
        labelNames: ['queue', 'state'],
      },
    },
    async read(g, cap) {
      const counts = (await readers.queues?.()) ?? {};
      const rows = Object.entries(counts).flatMap(([queue, states]) =>
        QUEUE_STATES.filter((state) => state in states).map((state) => ({ queue, state, n: states[state]! })),
      );
      const kept = cap('glacier_queue_jobs', 'queues', rows, {
        unitOf: (r) => r.queue,
        foldKeyOf: (r) => r.state,
        fold: (into: (typeof rows)[number] | undefined, r) => ({
          ...r,
          queue: 'other',
          n: (into?.n ?? 0) + r.n,
        }),
      });
      for (const r of kept) g.jobs.set({ queue: r.queue, state: r.state }, r.n);
    },
  });

  scrape.define({
    name: 'queue watch',
    families: {
      offset: {
        name: 'glacier_queue_clock_offset_seconds',
        help: "The queue database's clock minus this process's (PostgreSQL queue): beyond 5 s either way, this process claims no job.",
      },
      fault: {
        name: 'glacier_queue_fault',
        help: 'A fault of the PostgreSQL queue this process sees (clock_skew, schema_missing, read_only): 1 while it lasts; its workers claim no job meanwhile.',
        labelNames: ['fault'],
      },
    },
    async read(g) {
      const reading = readers.queueWatch?.();
      if (!reading) return;
      if (reading.offsetMs !== undefined) g.offset.set(reading.offsetMs / 1000);
      for (const fault of QUEUE_FAULTS) g.fault.set({ fault }, reading.faults.has(fault) ? 1 : 0);
    },
  });

  scrape.define({
    name: 'readiness',
    families: {
      ready: {
        name: 'glacier_ready',
        help: 'Readiness checks of /readyz (redis, database, migrations...): 1 passing, 0 failing.',
        labelNames: ['check'],
      },
    },
    async read(g) {
      const readiness = await readers.readiness?.();
      if (!readiness) return;
      for (const [check, result] of Object.entries(readiness.checks))
        g.ready.set({ check }, result.ok ? 1 : 0);
    },
  });
}
