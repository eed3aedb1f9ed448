/**
 * A finished operation's file: downloaded once (or found complete on disk after a crash), then
 * loaded into exported_transactions; a file that proves broken, or that is not on this host's disk
 * before it is loaded, is fetched again; one whose format is unknown is kept and recorded.
 */

import { access, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type JobContext, JobFailedError, scrubSecrets } from '../kernel/index.js';
import { JOB_NAMES } from '../kernel/job-names.js';
import {
  type ExportFileRow,
  type ExportOperationRow,
  endExportLoad,
  getExportFile,
  markExportFileBroken,
  markExportFileUnsupported,
  recordExportDownloadFailure,
  recordExportFile,
  startExportLoad,
} from '../store/index.js';
import { apiAddressClasses, createDownloadGuard, DownloadRefusedError } from './address-guard.js';
import { ExportFileError, loadExportFile, UnsupportedExportFileError } from './csv-load.js';
import { downloadToFile, FileTooLargeError, hashFile, safeFileComponent } from './download.js';
import { describeOperation, type ExportsSettings, iso } from './operation.js';

/** Where an operation's file goes: one folder per definition, the window and the id in the name. */
export function exportFilePath(directory: string, row: ExportOperationRow): string {
  const name = `${row.firstDate}_${row.lastDate}_${safeFileComponent(row.operationId)}.csv`;
  return resolve(join(directory, safeFileComponent(row.exportName), name));
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function ensureDownloaded(
  ctx: JobContext,
  s: ExportsSettings,
  row: ExportOperationRow,
): Promise<ExportFileRow> {
  const existing = await getExportFile(ctx.store, row.operationId);
  if (existing && existing.loadStatus !== 'broken') {
    if (existing.loadStatus !== 'pending' || (await exists(existing.path))) return existing;
    // Recorded but not loaded, and not on this disk: another host downloaded it (an exports
    // directory that not every worker mounts), or it was removed. Download it again, here.
    ctx.log.warn(
      { operationId: row.operationId, path: existing.path },
      'export file recorded but not on this disk: downloading it again',
    );
  }
  if (!row.downloadUrl) {
    throw new JobFailedError(`${describeOperation(row)} is ${row.status} without a download URL`, {
      unrecoverable: true,
    });
  }
  const path = exportFilePath(s.directory, row);
  let file: { sizeBytes: number; sha256: string };
  if (await exists(path)) {
    // Only a complete download is renamed to this name: a crash came before it was recorded.
    file = await hashFile(path);
    ctx.log.info({ operationId: row.operationId, path }, 'export file already complete on disk');
  } else {
    const task = `download ${row.exportName} ${row.firstDate}`;
    try {
      const guard = createDownloadGuard({
        // An API host that does not resolve now counts as public: nothing special is allowed.
        apiClasses: await apiAddressClasses(ctx.client.baseUrl).catch((err: Error) => {
          ctx.log.warn({ err: err.message }, 'cannot resolve the API host to classify it');
          return new Set<never>();
        }),
        allowedHosts: s.allowedDownloadHosts,
      });
      file = await downloadToFile(row.downloadUrl, path, {
        signal: ctx.signal,
        idleTimeoutMs: s.downloadIdleTimeout,
        timeoutMs: s.downloadTimeout,
        maxAttempts: s.downloadAttempts,
        guard,
        maxFileSize: s.maxFileSize,
        onProgress: (bytes) => ctx.progress.update(task, bytes, undefined, 'bytes'),
      });
    } catch (err) {
      if (!(err instanceof DownloadRefusedError || err instanceof FileTooLargeError)) throw err;
      // Retrying cannot help until the operator changes the settings: the reason is recorded on the
      // operation, nothing is downloaded, and no new export is asked for. The next run checks the
      // same URL again against the settings of the day (no request, no compute unit).
      const reason = scrubSecrets(err.message, ctx.secrets ?? []);
      await recordExportDownloadFailure(ctx.store, row.operationId, reason);
      throw new JobFailedError(`${describeOperation(row)}: ${reason}`, {
        unrecoverable: true,
        cause: err,
      });
    } finally {
      ctx.progress.end(task);
    }
    ctx.log.info({ operationId: row.operationId, path, sizeBytes: file.sizeBytes }, 'export downloaded');
  }
  const record = { operationId: row.operationId, path, ...file, downloadedAt: iso(ctx) };
  await recordExportFile(ctx.store, record);
  ctx.countRows(1);
  return (await getExportFile(ctx.store, row.operationId)) as ExportFileRow;
}

/**
 * Downloads the file if needed, then loads it unless its load is over. A file whose header has no
 * usable key (or too many columns it cannot place) is marked `unsupported` (kept, recorded, not
 * read again: the window is done). A broken copy is deleted and downloaded again at once,
 * `downloadAttempts` copies in all, then the file is marked `failed`; so is a file whose load was
 * started `downloadAttempts` times by processes that died in it (out of memory), each of whose runs
 * is recorded interrupted. Each outcome fails the run that reaches it, once, without a retry.
 * Returns the load status of a file whose load is over (`loaded`, or judged before).
 */
export async function ensureLoaded(
  ctx: JobContext,
  s: ExportsSettings,
  row: ExportOperationRow,
): Promise<string> {
  for (;;) {
    const file = await ensureDownloaded(ctx, s, row);
    if (file.loadStatus !== 'pending') return file.loadStatus;
    const start = await startExportLoad(ctx.store, row.operationId, ctx.runId, s.downloadAttempts, {
      at: iso(ctx),
      error: `interrupted: the process died while loading the export file of ${describeOperation(row)} (out of memory?)`,
    });
    if (start.interruptedMarked)
      ctx.log.warn(
        { runId: start.interruptedRun },
        'run that died loading an export file marked interrupted',
      );
    if (start.failed) {
      ctx.countRows(1);
      throw new JobFailedError(
        `${describeOperation(row)}: its load was started ${start.starts} times and the process died in it each time (downloadAttempts ${s.downloadAttempts}): given up until \`run exports --reload ${row.exportName}\``,
        { unrecoverable: true },
      );
    }
    const outcome = await loadOnce(ctx, row, file);
    if (outcome === 'loaded') return outcome;
    if (outcome instanceof UnsupportedExportFileError) {
      await markExportFileUnsupported(ctx.store, row.operationId, outcome.message);
      ctx.countRows(1);
      throw new JobFailedError(
        `${describeOperation(row)}: ${outcome.message}; the file is kept and not read again until \`run exports --reload ${row.exportName}\``,
        { unrecoverable: true, cause: outcome },
      );
    }
    // A broken copy (a fault on the way, or upstream): forget it and fetch another, a bounded number of times.
    await rm(file.path, { force: true });
    const marked = await markExportFileBroken(
      ctx.store,
      row.operationId,
      outcome.message,
      s.downloadAttempts,
    );
    ctx.countRows(1);
    const copies = marked?.brokenCopies ?? s.downloadAttempts;
    if (marked?.loadStatus !== 'broken') {
      throw new JobFailedError(
        `${describeOperation(row)}: ${outcome.message}; ${copies} downloaded copies were broken (downloadAttempts ${s.downloadAttempts}): given up until \`run exports --reload ${row.exportName}\``,
        { unrecoverable: true, cause: outcome },
      );
    }
    ctx.log.warn(
      { operationId: row.operationId, err: outcome.message, brokenCopies: copies },
      'export file broken: deleted, downloading it again',
    );
  }
}

/** One load of the file: `loaded`, or why not (the errors a file can cause; others are thrown). */
async function loadOnce(
  ctx: JobContext,
  row: ExportOperationRow,
  file: ExportFileRow,
): Promise<'loaded' | ExportFileError | UnsupportedExportFileError> {
  const task = `load ${row.exportName} ${row.firstDate}`;
  try {
    const { rows, added, setAside } = await loadExportFile(
      ctx.store,
      {
        path: file.path,
        operationId: row.operationId,
        exportName: row.exportName,
        operationType: row.operationType,
      },
      {
        signal: ctx.signal,
        at: () => iso(ctx),
        onProgress: (bytes) => ctx.progress.update(task, bytes, file.sizeBytes, 'bytes'),
        commit: ctx.commit,
        // A row that fails is set aside under the exports job (whichever run loads the file).
        where: {
          job: JOB_NAMES.exports,
          scope: row.exportName,
          context: {
            exportName: row.exportName,
            operationId: row.operationId,
            operationType: row.operationType,
          },
        },
      },
    );
    ctx.log.info({ operationId: row.operationId, rows, added, setAside }, 'export loaded');
    return 'loaded';
  } catch (err) {
    // Shut down mid-load: not a crash, its start does not count against the file.
    if (ctx.signal.aborted) {
      await endExportLoad(ctx.store, row.operationId).catch(() => undefined);
      throw err;
    }
    if (err instanceof ExportFileError || err instanceof UnsupportedExportFileError) return err;
    throw err;
  } finally {
    ctx.progress.end(task);
  }
}
