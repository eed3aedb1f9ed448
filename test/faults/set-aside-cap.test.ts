/**
 * A hostile upstream that sends bad records by the page (issue 34, D8): 100 rewards a page, each out
 * of bounds (a denomination of 99), each of its own key, each with 15 KB of fields the OpenAPI does
 * not list, 10 pages a run. Before: 1,000 rows (15.5 MB) of rejected_records and 1,000 log lines a
 * run; a keyless record with a field that changes at each sight was a new row and line each time.
 * Now: a run keeps at most `setAside.maxRecordsPerRun` rows and `maxBytesPerRun` bytes, counts the
 * rest (`glacier_rejected_records_dropped_total`), logs the first 10 records and one line for the
 * rest; the keyless record is one row, seen again.
 *
 * The simulator's fault modes set aside one record a page at most (`badRecordRate`): the flood is a
 * small local server playing the API (test/support/hostile-api.ts), as the hostile suite does.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { jobs as allJobs } from '../../jobs/index.js';
import { demoAddress, demoCb58 } from '../../src/commands/demo-config.js';
import { loadConfig } from '../../src/config/index.js';
import { findJob, runJob } from '../../src/kernel/index.js';
import { createOwnMetrics } from '../../src/metrics/own.js';
import { createManualClock } from '../../src/runtime/clock.js';
import { T0 } from '../support/collector.js';
import { hostileClient, startHostileApi } from '../support/hostile-api.js';
import { captureLog } from '../support/log.js';
import { testStore } from '../support/store.js';
import { rewardsText } from '../unit/upstream/fixtures.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const ADDRESS = demoAddress('set-aside-cap');
const PAGES = 10;
const PER_PAGE = 100;
/** 15 unknown fields of 1 KiB each: 15 KB of drift per record. */
const UNKNOWN = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`hostile${i}`, 'x'.repeat(1024)]));

const base = (JSON.parse(rewardsText('12.5')) as { historicalRewards: Record<string, unknown>[] })
  .historicalRewards[0]!;

/** The `i`th reward: its own UTXO, a denomination out of bounds, 15 KB of unknown fields. */
function hostileReward(i: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const end = Math.floor(T0 / 1000) - 86_400 * 2 - i * 600;
  return {
    ...base,
    ...UNKNOWN,
    addresses: [ADDRESS],
    utxoId: demoCb58(`hostile-utxo-${i}`),
    endTimestamp: end,
    startTimestamp: end - 14 * 86_400,
    reward: { ...(base['reward'] as object), denomination: 99 },
    ...fields,
  };
}

describe('a hostile upstream sending bad records by the page', () => {
  it('rows, bytes and log lines of a run are bounded by setAside; the rest is counted; a keyless record is one row', async () => {
    let sight = 0;
    const api = await startHostileApi({
      'GET /v1/networks/mainnet/rewards': (_req, url) => {
        const token = url.searchParams.get('pageToken');
        const index = token ? Number(token.slice(1)) : 0;
        if (index === 0) sight++;
        const records = Array.from({ length: PER_PAGE }, (_, i) => hostileReward(index * PER_PAGE + i));
        // First on the first page: a record without a readable key (its utxoId is what fails), one
        // unknown field of which changes at each sight.
        if (index === 0)
          records[0] = hostileReward(0, { utxoId: 'not an id!', hostileNonce: `sight-${sight}` });
        const next = index + 1 < PAGES ? { nextPageToken: `p${index + 1}` } : {};
        return { body: { historicalRewards: records, ...next } };
      },
    });
    cleanups.push(api.close);
    const db = await testStore();
    cleanups.push(db.cleanup);
    const clock = createManualClock(T0);
    const client = hostileClient(api, 'glc-set-aside-key', clock, cleanups);
    const { log, text } = captureLog('debug');
    const config = loadConfig({
      env: {},
      cwd: '/nonexistent',
      file: {
        jobs: {
          rewards: { schedule: '0 * * * *', addresses: [ADDRESS], pageSize: PER_PAGE, maxPages: PAGES },
        },
      },
    });
    expect(config.setAside).toEqual({ maxRecordsPerRun: 100, maxBytesPerRun: 1024 * 1024 });
    const job = findJob(allJobs, 'rewards')!;
    const run = () => runJob(job, { client, store: db.store, log, clock, secrets: [] }, { config });
    const count = async (sql: string) => Number((await db.store.get<{ n: number }>(sql))!.n);
    const lines = (from: number) =>
      text()
        .slice(from)
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string });

    const first = await run();
    const firstLines = lines(0);
    expect(first.status).toBe('succeeded');
    expect(api.requests.length).toBe(PAGES);
    const sent = PAGES * PER_PAGE;
    const rows = await count('SELECT COUNT(*) AS n FROM rejected_records');
    const bytes = await count('SELECT COALESCE(SUM(LENGTH(raw)), 0) AS n FROM rejected_records');
    console.info(
      `D8 figures: ${sent} bad records sent (${Math.round((sent * 16.5 * 1024) / 1024 / 1024)} MiB), ${rows} rows and ${(bytes / 1024).toFixed(0)} KiB of raw JSON kept, ${firstLines.length} log lines, ${first.setAsideDropped} dropped`,
    );
    expect(rows).toBeLessThanOrEqual(100);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(first.setAsideDropped).toBe(sent - rows);
    expect(Object.values(first.rejected).reduce((a, b) => a + b, 0)).toBe(rows);
    // Ten records logged one by one, one line for what was dropped; the drift names (at most 50)
    // and the run's own line besides.
    expect(firstLines.filter((l) => l.msg.startsWith('record set aside'))).toHaveLength(10);
    const capLines = firstLines.filter((l) => l.msg.startsWith("records set aside beyond the run's cap"));
    expect(capLines).toHaveLength(1);
    expect(capLines[0]).toMatchObject({ dropped: sent - rows, maxRecordsPerRun: 100 });
    expect(firstLines.length).toBeLessThanOrEqual(10 + 1 + 50 + 5);

    // The counter: what was dropped, per job.
    const registry = new Registry();
    const own = createOwnMetrics(['rewards']);
    own.register(registry);
    own.observeRun(first);
    const dropped = await registry.getSingleMetric('glacier_rejected_records_dropped_total')!.get();
    expect(dropped.values).toEqual([{ value: sent - rows, labels: { job_name: 'rewards' } }]);

    // Again: the same flood (the keyless record with another unknown value). Another run's cap at
    // most; what was kept is seen again.
    const mark = text().length;
    const second = await run();
    const secondLines = lines(mark);
    expect(second.status).toBe('succeeded');
    expect(await count('SELECT COUNT(*) AS n FROM rejected_records')).toBeLessThanOrEqual(2 * 100);
    expect(secondLines.filter((l) => l.msg.startsWith('record set aside'))).toHaveLength(10);
    expect(
      secondLines.filter((l) => l.msg.startsWith("records set aside beyond the run's cap")),
    ).toHaveLength(1);
    const keyless = await db.store.all<{ timesSeen: number }>(
      'SELECT times_seen AS "timesSeen" FROM rejected_records WHERE natural_key IS NULL',
    );
    expect(keyless.map((r) => Number(r.timesSeen))).toEqual([2]);
    // Seen again, not new: each record kept by the first run is one row, seen twice.
    expect(await count('SELECT COUNT(*) AS n FROM rejected_records WHERE times_seen = 2')).toBe(rows);
  }, 180_000);
});
