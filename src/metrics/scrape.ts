/**
 * Gauges built at scrape time, node_exporter style: each collector reads what it needs once per
 * scrape (a few summary rows, or a read function the service gave, like BullMQ's job counts) and
 * sets its gauges; `glacier_scrape_collector_success` and `_duration_seconds` say how each went.
 * A collector that fails or times out exposes no series (never stale ones) and logs, at most once
 * a minute. `collect()` runs every collector once, before the registry is rendered; `version()` lets
 * the renderer keep a family's text while its collector has set nothing new.
 */
import { performance } from 'node:perf_hooks';
import { Gauge, type LabelValues, type Registry } from 'prom-client';
import { createLabelCheck, INVALID_LABEL, type LabelCheck } from '../escape/label.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { type CapOptions, type Capped, capRows } from './cap.js';

export interface FamilySpec {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

export type Gauges<K extends string> = Record<K, Gauge>;

export interface CollectorSpec<K extends string> {
  /** The `collector` label of the scrape gauges. */
  name: string;
  families: Record<K, FamilySpec>;
  /**
   * Sets the gauges (cleared before each call). Never writes, never calls the upstream API. Every
   * label value that comes from upstream text goes through `label` first (src/escape/label.ts).
   */
  read(gauges: Gauges<K>, cap: CapFn, label: LabelCheck): void | Promise<void>;
  /**
   * A cheap text that changes whenever what `read` would set may have changed (the count and newest
   * update time of the rows it reads). While it is the one of the last successful read, `read` is
   * not called and the series stay as they are (and their rendered text with them). Without it:
   * `read` on every scrape.
   */
  fingerprint?: () => string | Promise<string>;
}

/** The cap, with a log line the first time a family goes over it. */
export type CapFn = <T>(
  family: string,
  what: string,
  rows: readonly T[],
  options: Omit<CapOptions<T>, 'cap'>,
) => T[];

export interface Scrape {
  define<K extends string>(spec: CollectorSpec<K>): Gauges<K>;
  /** Runs every collector once: a scrape, before the registry is rendered. */
  collect(): Promise<void>;
  /**
   * For a family a collector defined: a number that changes whenever its series may have changed
   * (the read set other values, or failed), so its rendered text can be kept until then. Undefined
   * for any other metric, and for the scrape's own success and duration gauges (set every scrape).
   */
  version(metricName: string): number | undefined;
}

export interface ScrapeDeps {
  registry: Registry;
  log: Logger;
  clock: Clock;
  seriesCap: number;
  /** How long one collector may take (a read from Redis that hangs). @defaultValue 2000 ms */
  timeoutMs?: number;
}

const LOG_EVERY_MS = 60_000;

export function createScrape(deps: ScrapeDeps): Scrape {
  const runs: (() => Promise<void>)[] = [];
  const timeoutMs = deps.timeoutMs ?? 2000;
  const versions = new Map<string, () => number>();
  const success = new Gauge({
    name: 'glacier_scrape_collector_success',
    help: 'Whether the collector read its data on this scrape (1) or failed (0); a failed one exposes no series.',
    labelNames: ['collector'],
    registers: [deps.registry],
  });
  const duration = new Gauge({
    name: 'glacier_scrape_collector_duration_seconds',
    help: 'How long the collector took on this scrape.',
    labelNames: ['collector'],
    registers: [deps.registry],
  });
  const capped = new Set<string>();
  // One log line per family, for the life of the process: the same bad value comes back every scrape.
  const label = createLabelCheck((family, problem) =>
    deps.log.warn(
      { family, problem },
      `${family}: a label value from the upstream is ${problem}; such values are counted under "${INVALID_LABEL}"`,
    ),
  );
  const lastLogged = new Map<string, number>();

  const cap: CapFn = (family, what, rows, options) => {
    const result: Capped<(typeof rows)[number]> = capRows(rows, { ...options, cap: deps.seriesCap });
    if (result.foldedUnits > 0 && !capped.has(family)) {
      capped.add(family);
      deps.log.warn(
        { family, cap: deps.seriesCap, folded: result.foldedUnits, what },
        `${family}: more ${what} than the cap of ${deps.seriesCap} series; the last ${result.foldedUnits} are summed into "other"`,
      );
    }
    return result.rows;
  };

  return {
    define<K extends string>(spec: CollectorSpec<K>): Gauges<K> {
      // What the previous successful read set, in order: a read that sets the same series to the
      // same values leaves the gauges as they are (prom-client hashes the labels of every set()),
      // and their version with them, so their text is not rendered again.
      let previous: SetCall[] | undefined;
      let previousPrint: string | undefined;
      let version = 0;
      const run = inFlight(async () => {
        const started = performance.now();
        let ok = 1;
        const calls: SetCall[] = [];
        try {
          const print = spec.fingerprint
            ? await withTimeout(Promise.resolve(spec.fingerprint()), timeoutMs, spec.name)
            : undefined;
          if (previous && print !== undefined && print === previousPrint) {
            success.set({ collector: spec.name }, ok);
            duration.set({ collector: spec.name }, (performance.now() - started) / 1000);
            return;
          }
          await withTimeout(Promise.resolve(spec.read(recorders(calls), cap, label)), timeoutMs, spec.name);
          previousPrint = print;
          if (!previous || !sameCalls(previous, calls)) {
            clear();
            for (const c of calls) {
              if (c.labels === undefined) gauges[c.key].set(c.value);
              else gauges[c.key].set(c.labels, c.value);
            }
            previous = calls;
          }
        } catch (err) {
          ok = 0;
          previous = undefined;
          previousPrint = undefined;
          clear();
          const now = deps.clock.now();
          if (now - (lastLogged.get(spec.name) ?? Number.NEGATIVE_INFINITY) >= LOG_EVERY_MS) {
            lastLogged.set(spec.name, now);
            deps.log.warn({ collector: spec.name, err: (err as Error).message }, 'metrics collector failed');
          }
        }
        success.set({ collector: spec.name }, ok);
        duration.set({ collector: spec.name }, (performance.now() - started) / 1000);
      });
      runs.push(run);
      const entries = Object.entries(spec.families) as [K, FamilySpec][];
      const gauges = Object.fromEntries(
        entries.map(([key, family]) => [
          key,
          new Gauge({
            name: family.name,
            help: family.help,
            labelNames: family.labelNames ?? [],
            registers: [deps.registry],
          }),
        ]),
      ) as Gauges<K>;
      for (const [, family] of entries) versions.set(family.name, () => version);
      type SetCall = { key: K; labels: LabelValues<string> | undefined; value: number };
      /** Stand-ins for the gauges that only record what the read sets. */
      const recorders = (calls: SetCall[]): Gauges<K> =>
        Object.fromEntries(
          entries.map(([key]) => [
            key,
            {
              set(labelsOrValue: LabelValues<string> | number, value?: number) {
                if (typeof labelsOrValue === 'number')
                  calls.push({ key, labels: undefined, value: labelsOrValue });
                else calls.push({ key, labels: labelsOrValue, value: value as number });
              },
            },
          ]),
        ) as unknown as Gauges<K>;
      const clear = () => {
        version++;
        for (const [key, family] of entries) {
          gauges[key].reset();
          // reset() leaves a label-less gauge at 0: no data must mean no series, not a zero.
          if ((family.labelNames ?? []).length === 0) gauges[key].remove();
        }
      };
      clear();
      return gauges;
    },
    collect: () => Promise.all(runs.map((run) => run())).then(() => undefined),
    version: (metricName) => versions.get(metricName)?.(),
  };
}

/** Whether two reads set the same series to the same values, in the same order. */
function sameCalls<C extends { key: string; labels: LabelValues<string> | undefined; value: number }>(
  a: readonly C[],
  b: readonly C[],
): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.key !== y.key || !Object.is(x.value, y.value)) return false;
    if (x.labels === y.labels) continue;
    if (!x.labels || !y.labels) return false;
    const keys = Object.keys(x.labels);
    if (keys.length !== Object.keys(y.labels).length) return false;
    for (const k of keys) if (x.labels[k] !== y.labels[k]) return false;
  }
  return true;
}

/** One run at a time, shared by every caller while it is in flight (two scrapes at once read once). */
function inFlight(fn: () => Promise<void>): () => Promise<void> {
  let current: Promise<void> | undefined;
  return () => {
    current ??= fn().finally(() => {
      current = undefined;
    });
    return current;
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
