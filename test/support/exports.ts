import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { exportsInProcess } from '../../jobs/exports.definition.js';
import {
  type ExportPollPayload,
  type ExportsPayload,
  exportPollJob,
  exportsJob,
} from '../../jobs/exports.js';
import {
  type Continuation,
  type ProgressSink,
  type RunDeps,
  type RunSummary,
  runFollowUps,
  runHandler,
} from '../../src/kernel/index.js';
import type { Collector } from './collector.js';

/**
 * An exports payload as a test runs it: `wait` says how `run exports` would run its continuations
 * (true: in-process until done or maxWait; false: each once); absent, they are returned as the queue
 * gets them.
 */
export type TestExportsPayload = ExportsPayload & { wait?: boolean };

/** The payload the queue would give the scheduled pass: no `wait`. */
export function queuePayload(payload: TestExportsPayload): ExportsPayload {
  const { wait: _wait, ...rest } = payload;
  return rest;
}

/** The `exports` job as `run exports` (with `wait`) or the queue (without) runs it. */
export function runExportsPass(
  c: Pick<Collector, 'deps'>,
  payload: TestExportsPayload,
  options: { signal?: AbortSignal; progress?: ProgressSink } = {},
): Promise<RunSummary> {
  return runExports(c.deps, payload, options);
}

export function runExports(
  deps: RunDeps,
  payload: TestExportsPayload,
  options: { signal?: AbortSignal; progress?: ProgressSink } = {},
): Promise<RunSummary> {
  const { wait } = payload;
  const settings = queuePayload(payload);
  if (wait === undefined) return runHandler('exports', exportsJob, settings, deps, options);
  return runHandler(
    'exports',
    (p: ExportsPayload, ctx) =>
      runFollowUps('exports', (ctx) => exportsJob(p, ctx), ctx, {
        mode: wait ? 'until-done' : 'once',
        ...exportsInProcess(p),
        resolve: (next) => (ctx) => exportPollJob({ ...p, ...next.args } as ExportPollPayload, ctx),
      }),
    settings,
    deps,
    options,
  );
}

export function runPoll(
  c: Collector,
  payload: TestExportsPayload,
  continuation: Continuation,
  options: { signal?: AbortSignal; progress?: ProgressSink } = {},
): Promise<RunSummary> {
  const data = { ...queuePayload(payload), ...continuation.args } as ExportPollPayload;
  return runHandler('export-poll', exportPollJob, data, c.deps, options);
}

/**
 * Runs continuations as the queue would (delays skipped), each id once, until none is left: what a
 * BullMQ worker does with the lead's glue. Returns every run's summary in order.
 */
export async function drainPolls(
  c: Collector,
  payload: TestExportsPayload,
  continuations: readonly Continuation[],
  limit = 200,
): Promise<RunSummary[]> {
  const queue = [...continuations];
  const seen = new Set<string>();
  const runs: RunSummary[] = [];
  while (queue.length > 0) {
    const next = queue.shift() as Continuation;
    if (seen.has(next.id)) continue;
    seen.add(next.id);
    if (runs.length >= limit) throw new Error(`more than ${limit} polls: a loop?`);
    expect(next.job).toBe('export-poll');
    expect(next.id).toBe(`export-poll|${next.args['operationId']}|${next.args['poll']}`);
    const summary = await runPoll(c, payload, next);
    runs.push(summary);
    queue.push(...summary.continuations);
  }
  return runs;
}

export async function count(c: Collector, sql: string, ...params: unknown[]): Promise<number> {
  return (await c.store.get<{ n: number }>(sql, params))!.n;
}

export function createRequests(c: Collector): number {
  return c.sim.requests.filter((r) => r.endpoint === 'createExport').length;
}

/** The downloaded file's rows, parsed here independently of the collector's loader. */
export function parseCsvFile(path: string): Record<string, string>[] {
  return parse(readFileSync(path), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
}

/** exported_transactions of one operation as the CSV's own column names, for comparison. */
export async function loadedRowsAsCsv(c: Collector, operationId: string): Promise<Record<string, string>[]> {
  const rows = await c.store.all<Record<string, string | number | null>>(
    'SELECT * FROM exported_transactions WHERE operation_id = ? ORDER BY block_timestamp, tx_hash',
    [operationId],
  );
  return rows.map((r) => ({
    txHash: String(r['tx_hash']),
    blockNumber: String(r['block_number']),
    blockTimestamp: String(r['block_timestamp']),
    blockHash: String(r['block_hash']),
    chainId: String(r['chain_id']),
    blockIndex: String(r['block_index']),
    txStatus: String(r['tx_status']),
    txType: String(r['tx_type']),
    from: String(r['from_address']),
    to: String(r['to_address']),
    value: String(r['value']),
    gasLimit: String(r['gas_limit']),
    gasUsed: String(r['gas_used']),
    gasPrice: String(r['gas_price']),
    nonce: String(r['nonce']),
    callType: String(r['method_call_type'] ?? ''),
    methodHash: String(r['method_hash'] ?? ''),
    methodName: String(r['method_name'] ?? ''),
  }));
}
