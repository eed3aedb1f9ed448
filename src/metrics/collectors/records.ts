import { countDriftNames, countSetAsideRecords, type Store } from '../../store/index.js';
import type { Scrape } from '../scrape.js';

/**
 * What the checks at the boundary keep: records set aside and waiting (rejected_records, per job,
 * a series for each of `jobs`, the configured jobs that set records aside;
 * the counter `glacier_records_rejected_total` counts them as they come), and the drift seen, the
 * distinct fields and enum values per endpoint that the OpenAPI does not list (upstream_drift).
 */
export function defineRecordsCollector(scrape: Scrape, store: Store, jobs: readonly string[]): void {
  scrape.define({
    name: 'records',
    families: {
      setAside: {
        name: 'glacier_records_set_aside',
        help: 'Upstream records set aside and still in rejected_records, per job: see `status` and docs/operations.md.',
        labelNames: ['job_name'],
      },
      drift: {
        name: 'glacier_upstream_unknown_names',
        help: 'Distinct fields (kind="field") and enum values (kind="enum_value") the upstream sent that the OpenAPI does not list, per endpoint (the first 50 of each).',
        labelNames: ['endpoint', 'kind'],
      },
    },
    async read(g, _cap, label) {
      // Every configured job that sets records aside has its series, 0 when none waits.
      for (const job of jobs) g.setAside.set({ job_name: job }, 0);
      for (const r of await countSetAsideRecords(store)) {
        g.setAside.set({ job_name: label('glacier_records_set_aside', r.job) }, r.records);
      }
      for (const d of await countDriftNames(store)) {
        const kind = d.kind === 'enumValue' ? 'enum_value' : 'field';
        g.drift.set({ endpoint: label('glacier_upstream_unknown_names', d.endpoint), kind }, d.names);
      }
    },
  });
}
