/**
 * `run exports --reload <name>`: after an upgrade that reads a new file format, the definition's
 * files judged `unsupported` are read again from disk and those `failed` are downloaded again;
 * the pass that follows finds them unfinished and polls them (no new export is created).
 */
import { type JobContext, JobFailedError } from '../kernel/index.js';
import { hasExportOperations, reopenExportFiles } from '../store/index.js';
import type { ExportsSettings } from './operation.js';

export async function reloadExportFiles(
  ctx: JobContext,
  s: ExportsSettings,
  exportName: string,
): Promise<void> {
  const configured = s.definitions.map((d) => d.name);
  if (!configured.includes(exportName) && !(await hasExportOperations(ctx.store, exportName))) {
    throw new JobFailedError(
      `--reload ${JSON.stringify(exportName)}: no export definition or operation has that name; definitions: ${configured.join(', ')}`,
      { unrecoverable: true },
    );
  }
  const { unsupported, failed } = await reopenExportFiles(ctx.store, exportName);
  ctx.countRows(unsupported + failed);
  ctx.log.info(
    { export: exportName, unsupported, failed },
    unsupported + failed > 0
      ? 'export files to read again (unsupported) and to download again (failed)'
      : 'no unsupported or failed export file to read again',
  );
}
