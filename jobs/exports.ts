import { join, resolve } from 'node:path';
import type { ExportDefinition, ExportsJobConfig, ExportWindow } from '../src/config/index.js';
import { downloadToFile, safeFileComponent } from '../src/download.js';
import { defineJob, withoutSchedule } from '../src/job.js';
import type { JobContext, JobHandler } from '../src/runner.js';
import {
  type ExportOperationRow,
  findLiveExport,
  listExportsToDownload,
  listRunningExports,
  listTruncatedWithoutFollowUp,
  recordExportFile,
  recordExportOperation,
  updateExportOperation,
} from '../src/store/index.js';
import type { CreateExportRequest } from '../src/upstream/index.js';

export type ExportsPayload = Pick<
  ExportsJobConfig,
  'directory' | 'pollInterval' | 'maxWait' | 'definitions'
> & {
  /** Keep polling until every operation is finished (or `maxWait` passes): `run exports`. */
  wait?: boolean;
};

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The dates a definition's window covers, relative to `nowMs` (UTC days). */
export function windowDates(window: ExportWindow, nowMs: number): { firstDate: string; lastDate: string } {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  if (window === 'previous-day')
    return { firstDate: isoDay(today - DAY_MS), lastDate: isoDay(today - DAY_MS) };
  if ('lastDays' in window)
    return { firstDate: isoDay(today - window.lastDays * DAY_MS), lastDate: isoDay(today - DAY_MS) };
  return { firstDate: window.firstDate, lastDate: window.lastDate };
}

export function exportRequest(
  def: ExportDefinition,
  firstDate: string,
  lastDate: string,
): CreateExportRequest {
  if (def.type === 'TRANSACTION_EXPORT_EVM') {
    return {
      type: def.type,
      firstDate,
      lastDate,
      options: { addresses: def.addresses, includeChains: def.includeChains },
    };
  }
  return {
    type: def.type,
    firstDate,
    lastDate,
    options: {
      addresses: def.addresses,
      cChainEvmAddresses: def.cChainEvmAddresses,
      includeChains: def.includeChains,
    },
  };
}

const iso = (ctx: JobContext) => new Date(ctx.clock.now()).toISOString();

/** Step 1: create the operation and persist its id before anything else. */
export async function createExportOperation(
  ctx: JobContext,
  req: {
    exportName: string;
    firstDate: string;
    lastDate: string;
    body: CreateExportRequest;
    followUpOf?: string;
  },
): Promise<string> {
  const op = await ctx.client.createTransactionExport(req.body, { signal: ctx.signal });
  recordExportOperation(ctx.store, { ...req, request: req.body }, op, iso(ctx));
  ctx.log.info(
    {
      operationId: op.operationId,
      exportName: req.exportName,
      firstDate: req.firstDate,
      lastDate: req.lastDate,
    },
    'export started',
  );
  return op.operationId;
}

/** Step 2: read an operation's status and record it. */
export async function pollExportOperation(
  ctx: JobContext,
  operationId: string,
): Promise<ExportOperationRow | undefined> {
  const op = await ctx.client.getOperation(operationId, { signal: ctx.signal });
  const row = updateExportOperation(ctx.store, op, iso(ctx));
  if (row && row.status !== 'RUNNING') {
    ctx.log.info({ operationId, status: row.status, code: row.code }, 'export finished');
  }
  return row;
}

/** Step 3: download a finished operation's file (no API key is sent to the download host). */
export async function downloadExportFile(
  ctx: JobContext,
  row: ExportOperationRow,
  directory: string,
): Promise<void> {
  if (!row.downloadUrl) throw new Error(`export ${row.operationId} is ${row.status} without a download URL`);
  const name = `${row.firstDate}_${row.lastDate}_${safeFileComponent(row.operationId)}.csv`;
  const path = resolve(join(directory, safeFileComponent(row.exportName), name));
  const file = await downloadToFile(row.downloadUrl, path, { signal: ctx.signal });
  recordExportFile(ctx.store, { operationId: row.operationId, ...file, downloadedAt: iso(ctx) });
  ctx.log.info({ operationId: row.operationId, path, sizeBytes: file.sizeBytes }, 'export downloaded');
}

/**
 * One pass over every export: start the due windows, continue truncated ones from their `nextDate`,
 * poll the running ones and download the finished ones. With `wait`, passes repeat every
 * `pollInterval` until nothing runs (or `maxWait` passes).
 */
export const exportsJob: JobHandler<ExportsPayload> = async (payload, ctx) => {
  const deadline = ctx.clock.now() + payload.maxWait;
  const failedDownloads = new Map<string, unknown>();
  for (const def of payload.definitions) {
    const { firstDate, lastDate } = windowDates(def.window, ctx.clock.now());
    if (findLiveExport(ctx.store, def.name, firstDate, lastDate)) continue;
    await createExportOperation(ctx, {
      exportName: def.name,
      firstDate,
      lastDate,
      body: exportRequest(def, firstDate, lastDate),
    });
    ctx.countRows(1);
  }
  for (;;) {
    for (const row of listRunningExports(ctx.store)) {
      await pollExportOperation(ctx, row.operationId);
      ctx.countRows(1);
    }
    for (const row of listTruncatedWithoutFollowUp(ctx.store)) {
      const def = payload.definitions.find((d) => d.name === row.exportName);
      if (!def || !row.nextDate) continue;
      await createExportOperation(ctx, {
        exportName: row.exportName,
        firstDate: row.nextDate,
        lastDate: row.lastDate,
        body: exportRequest(def, row.nextDate, row.lastDate),
        followUpOf: row.operationId,
      });
      ctx.countRows(1);
    }
    // One file that cannot be fetched (an expired URL) must not hold back the others.
    for (const row of listExportsToDownload(ctx.store)) {
      if (failedDownloads.has(row.operationId)) continue;
      try {
        await downloadExportFile(ctx, row, payload.directory);
        ctx.countRows(1);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        failedDownloads.set(row.operationId, err);
        ctx.log.error(
          { operationId: row.operationId, err: (err as Error).message },
          'export download failed',
        );
      }
    }
    const running = listRunningExports(ctx.store).length;
    if (!payload.wait || running === 0) break;
    if (ctx.clock.now() + payload.pollInterval > deadline) {
      throw new Error(`${running} export(s) still RUNNING after waiting ${payload.maxWait} ms`);
    }
    await sleep(payload.pollInterval, ctx.signal);
  }
  if (failedDownloads.size > 0) {
    const [id, cause] = failedDownloads.entries().next().value as [string, unknown];
    throw new Error(`${failedDownloads.size} export download(s) failed, first ${id}`, { cause });
  }
};

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolveSleep, reject) => {
    const timer = setTimeout(resolveSleep, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** Status reads assumed per export while it runs, for `plan`. */
const POLLS_PER_EXPORT = 10;

export const exportsDefinition = defineJob({
  name: 'exports',
  configKey: 'exports',
  handler: exportsJob,
  payload: (section, args) => ({ ...withoutSchedule(section), wait: args.wait === true }),
  cost: (section) => {
    const n = section.definitions.length;
    return {
      steady: { createExport: n, getOperation: n },
      worst: { createExport: n, getOperation: n * POLLS_PER_EXPORT },
      note: `${n} definition(s); status reads assume up to ${POLLS_PER_EXPORT} per export`,
    };
  },
});
