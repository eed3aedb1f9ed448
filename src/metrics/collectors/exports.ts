import {
  EXPORT_LOAD_STATUSES,
  type ExportSummary,
  readExportSummaries,
  type Store,
} from '../../store/index.js';
import { operationStatuses } from '../../upstream/enums.js';
import { OTHER } from '../cap.js';
import type { Scrape } from '../scrape.js';

/** Exports per definition, from export_summaries (refreshed by the export handlers after each step). */
export function defineExportsCollector(scrape: Scrape, store: Store): void {
  scrape.define({
    name: 'exports',
    families: {
      operations: {
        name: 'glacier_export_operations',
        help: 'Export operations started, per export definition and status (GAVE_UP: RUNNING past the timeout).',
        labelNames: ['export', 'status'],
      },
      latest: {
        name: 'glacier_export_latest_status',
        help: "1 for the status of the export definition's newest operation, 0 for the other statuses.",
        labelNames: ['export', 'status'],
      },
      bytes: {
        name: 'glacier_export_downloaded_bytes',
        help: 'Bytes of export files downloaded, per export definition.',
        labelNames: ['export'],
      },
      rows: {
        name: 'glacier_export_loaded_rows',
        help: 'CSV rows loaded into exported_transactions from export files, per export definition.',
        labelNames: ['export'],
      },
      files: {
        name: 'glacier_export_files',
        help: 'Downloaded export files per export definition and load status (pending, loaded, unsupported, broken, failed).',
        labelNames: ['export', 'status'],
      },
      lastCompleted: {
        name: 'glacier_export_last_completed_timestamp_seconds',
        help: 'When the newest completed operation of the export definition completed (upstream time), Unix seconds.',
        labelNames: ['export'],
      },
    },
    async read(g, cap) {
      const summaries = await readExportSummaries(store);
      const kept = cap('glacier_export_operations', 'export definitions', summaries, {
        unitOf: (s) => s.exportName,
        foldKeyOf: () => OTHER,
        fold: (into: ExportSummary | undefined, s) => {
          const statuses = { ...(into?.statuses ?? {}) };
          for (const [status, n] of Object.entries(s.statuses))
            statuses[status] = (statuses[status] ?? 0) + n;
          return {
            exportName: OTHER,
            latestStatus: '',
            bytesDownloaded: (into?.bytesDownloaded ?? 0) + s.bytesDownloaded,
            filesDownloaded: (into?.filesDownloaded ?? 0) + s.filesDownloaded,
            rowsLoaded: (into?.rowsLoaded ?? 0) + s.rowsLoaded,
            lastCompletedAtMs: Math.max(into?.lastCompletedAtMs ?? 0, s.lastCompletedAtMs ?? 0) || null,
            statuses,
            files: Object.fromEntries(
              [...new Set([...Object.keys(into?.files ?? {}), ...Object.keys(s.files)])].map((k) => [
                k,
                (into?.files[k] ?? 0) + (s.files[k] ?? 0),
              ]),
            ),
          };
        },
      });
      for (const s of kept) {
        const name = { export: s.exportName };
        for (const status of new Set([...operationStatuses, 'GAVE_UP', ...Object.keys(s.statuses)])) {
          g.operations.set({ ...name, status }, s.statuses[status] ?? 0);
          if (s.exportName !== OTHER) g.latest.set({ ...name, status }, status === s.latestStatus ? 1 : 0);
        }
        for (const status of new Set([...EXPORT_LOAD_STATUSES, ...Object.keys(s.files)])) {
          g.files.set({ ...name, status }, s.files[status] ?? 0);
        }
        g.bytes.set(name, s.bytesDownloaded);
        g.rows.set(name, s.rowsLoaded);
        if (s.lastCompletedAtMs !== null) g.lastCompleted.set(name, s.lastCompletedAtMs / 1000);
      }
    },
  });
}
