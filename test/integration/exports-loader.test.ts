import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { exportPollDefinition, exportsDefinition } from '../../jobs/exports.definition.js';
import type { ExportsPayload } from '../../jobs/exports.js';
import type { Config } from '../../src/config/index.js';
import { setAsideSchema } from '../../src/config/schema.js';
import { type ProgressSink, runJob } from '../../src/kernel/index.js';
import { AUTO_RENEWED_TX_TYPES, type CsvColumnSpec, type CsvDefect } from '../../src/simulator/csv.js';
import type { SimulatorOptions } from '../../src/simulator/index.js';
import { readExportSummaries, refreshExportSummaries } from '../../src/store/index.js';
import { type Collector, evmExportPayload, requestCount, startCollector } from '../support/collector.js';
import { count, runExportsPass } from '../support/exports.js';
import { tempDir } from '../support/tmp.js';

/**
 * The export loader against files laid out otherwise than the simulator's own (the format is not
 * documented publicly): headers in another case, order and spelling, with columns missing or
 * added; a header without the key (recorded `unsupported`, never fetched or read again); broken
 * files (downloaded again, `downloadAttempts` copies in all, then `failed`). Every file comes from
 * the simulator over HTTP; the requests are counted there.
 */

let collector: Collector | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await collector?.close();
  collector = undefined;
  for (const fn of cleanups.splice(0)) fn();
});

async function setup(exports: NonNullable<SimulatorOptions['exports']>, sim: SimulatorOptions = {}) {
  collector = await startCollector({ sim: { ...sim, exports: { runningMs: 0, ...exports } } });
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return { c: collector, dir: dir.dir };
}

type Row = Record<string, string | number | null>;

const rowsOf = (c: Collector) =>
  c.store.all<Row>('SELECT * FROM exported_transactions ORDER BY block_timestamp, tx_hash');

/** What the collector spent on the API and the download host so far. */
const spent = (c: Collector) => ({
  posts: requestCount(c.sim, 'createExport'),
  statusReads: requestCount(c.sim, 'getOperation'),
  downloads: requestCount(c.sim, 'download'),
});

/** A progress sink that records the tasks started (a `load …` task is a read of a file). */
function tasks(): ProgressSink & { seen: Set<string> } {
  const seen = new Set<string>();
  return { seen, update: (task) => seen.add(task.split(' ')[0] as string), end: () => undefined };
}

function primaryNetworkPayload(dir: string): ExportsPayload {
  const payload = evmExportPayload(dir);
  const def = {
    name: 'staking',
    type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK',
    network: 'mainnet',
    addresses: [],
    cChainEvmAddresses: [],
    includeChains: ['p-chain'],
    window: 'previous-day',
  };
  return { ...payload, definitions: [def as unknown as ExportsPayload['definitions'][number]] };
}

describe('exports loader: headers other than the simulator own', () => {
  it('maps columns by name whatever their case, punctuation and order; missing ones are NULL; unknown ones go to extra', async () => {
    const columns: CsvColumnSpec[] = [
      { header: 'Note', value: 'from a newer API' },
      { header: 'to.address', field: 'to' },
      { header: 'BLOCK_TIMESTAMP', field: 'blockTimestamp' },
      { header: 'Tx Hash', field: 'txHash' },
      { header: 'value', field: 'value' },
      { header: 'chain-id', field: 'chainId' },
      { header: 'From', field: 'from' },
      { header: 'gasUsed', value: '0x5208' },
      { header: 'gas_price', value: 'n/a' },
      { header: 'method.callType', field: 'callType' },
      { header: 'Tx Hash', value: 'a second cell of the same name' },
    ];
    const { c, dir } = await setup({ fileColumns: columns });
    const run = await runExportsPass(c, evmExportPayload(dir));
    expect(run.status).toBe('succeeded');
    const op = (await c.store.get<{ operation_id: string }>('SELECT operation_id FROM export_operations'))!;
    const truth = [...(c.sim.truth.exportRows(op.operation_id) ?? [])];
    const rows = await rowsOf(c);
    expect(rows).toHaveLength(500);
    const byHash = new Map(rows.map((r) => [r['tx_hash'], r]));
    for (const t of truth) {
      const row = byHash.get(t.txHash as string);
      expect(row).toMatchObject({
        chain_id: t.chainId,
        block_timestamp: Number(t.blockTimestamp),
        from_address: t.from,
        to_address: t.to,
        value: t.value,
        method_call_type: t.callType || null,
        // hex turned into decimal
        gas_used: '21000',
        // absent from the file
        block_hash: null,
        tx_type: null,
        nonce: null,
        // present, but not a number: NULL here, kept in extra
        gas_price: null,
      });
      expect(JSON.parse(row?.['extra'] as string)).toEqual({
        Note: 'from a newer API',
        gas_price: 'n/a',
        'Tx Hash#11': 'a second cell of the same name',
      });
    }
    expect(await c.store.get('SELECT load_status, rows_loaded FROM export_files')).toEqual({
      load_status: 'loaded',
      rows_loaded: 500,
    });
  });

  it('reads a Primary Network file by its aliases (blockchainId, TxID), keeping what it does not know', async () => {
    const columns: CsvColumnSpec[] = [
      { header: 'TxID', field: 'txHash' },
      { header: 'blockchainId', field: 'chain' },
      { header: 'amount', field: 'amount' },
      { header: 'memo', value: 'hello, world' },
    ];
    const { c, dir } = await setup({ fileColumns: columns, rowsPerDay: 20 });
    const run = await runExportsPass(c, primaryNetworkPayload(dir));
    expect(run.status).toBe('succeeded');
    const op = (await c.store.get<{ operation_id: string }>('SELECT operation_id FROM export_operations'))!;
    const truth = [...(c.sim.truth.exportRows(op.operation_id) ?? [])];
    const rows = await c.store.all<Row>('SELECT * FROM exported_transactions ORDER BY tx_hash');
    expect(rows.map((r) => [r['tx_hash'], r['chain_id'], r['amount']])).toEqual(
      truth.map((t) => [t.txHash, t.chain, t.amount]).sort((a, b) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : 1)),
    );
    expect(rows.every((r) => r['block_timestamp'] === null && r['asset_id'] === null)).toBe(true);
    expect(rows.every((r) => JSON.parse(r['extra'] as string).memo === 'hello, world')).toBe(true);
  });
});

describe('exports loader: P-Chain transaction types no public document lists yet', () => {
  it('loads AddAutoRenewedValidatorTx, SetAutoRenewedValidatorConfigTx and RewardAutoRenewedValidatorTx rows as any other, none set aside for its type', async () => {
    const { c, dir } = await setup(
      { rowsPerDay: 30 },
      { faults: { endpoints: { download: { plan: [{ kind: 'drift' }] } } } },
    );
    const run = await runExportsPass(c, primaryNetworkPayload(dir));
    expect(run.status).toBe('succeeded');
    const types = await c.store.all<{ txType: string; n: number }>(
      'SELECT tx_type AS "txType", COUNT(*) AS n FROM exported_transactions GROUP BY tx_type ORDER BY tx_type',
    );
    const loaded = new Set(types.map((t) => t.txType));
    for (const type of AUTO_RENEWED_TX_TYPES) expect(loaded).toContain(type);
    const rejected = await c.store.all<{ problems: string }>(
      "SELECT problems FROM rejected_records WHERE job = 'exports'",
    );
    expect(rejected.filter((r) => /txType|tx_type/i.test(r.problems))).toEqual([]);
  });
});

describe('exports loader: text', () => {
  it('reads UTF-8 characters split across the 1 MiB chunks the file is read in', async () => {
    const memo = '€😀é'.repeat(400);
    const columns: CsvColumnSpec[] = ['txHash', 'chainId', { header: 'memo', value: memo }];
    const { c, dir } = await setup({ fileColumns: columns, rowsPerDay: 1_000 });
    expect((await runExportsPass(c, evmExportPayload(dir))).status).toBe('succeeded');
    const file = (await c.store.get<{ path: string }>('SELECT path FROM export_files'))!;
    const bytes = readFileSync(file.path);
    // The read stream's chunks are 1 MiB: at least one boundary falls inside a character.
    const boundaries = Array.from(
      { length: Math.floor(bytes.length / 2 ** 20) },
      (_, i) => (i + 1) * 2 ** 20,
    );
    expect(boundaries.some((b) => ((bytes[b] as number) & 0xc0) === 0x80)).toBe(true);
    const extras = await c.store.all<{ extra: string }>('SELECT DISTINCT extra FROM exported_transactions');
    expect(extras.map((r) => JSON.parse(r.extra))).toEqual([{ memo }]);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(1_000);
  });
});

describe('exports loader: a header without the key', () => {
  const noKey: CsvColumnSpec[] = [
    { header: 'identifier', field: 'txHash' },
    { header: 'chainId', field: 'chainId' },
    'blockTimestamp',
    'value',
  ];

  it('is recorded unsupported, shown by the metric, and never exported, fetched or read again until --reload', async () => {
    const { c, dir } = await setup({ fileColumns: noKey });
    const payload = evmExportPayload(dir);
    const first = await runExportsPass(c, payload);
    expect(first.status).toBe('failed');
    expect(first.error?.message).toMatch(
      /its header has no txHash \(as txHash, hash, transactionHash\) column, the key of a TRANSACTION_EXPORT_EVM file \(header: "identifier,chainId,blockTimestamp,value"\); the file is kept and not read again until `run exports --reload treasury`/,
    );
    const file = (await c.store.get<Row>('SELECT * FROM export_files'))!;
    expect(file).toMatchObject({ load_status: 'unsupported', rows_loaded: null, loaded_at: null });
    expect(file['load_error']).toContain('header: "identifier,chainId,blockTimestamp,value"');
    expect(file['size_bytes']).toBe(readFileSync(file['path'] as string).length);
    expect(file['sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(0);
    await refreshExportSummaries(c.store);
    expect((await readExportSummaries(c.store))[0]?.files).toEqual({ unsupported: 1 });

    // Later runs spend nothing on it: no POST, no status read, no download, no read of the file.
    const before = spent(c);
    for (let i = 0; i < 2; i++) {
      const progress = tasks();
      const later = await runExportsPass(c, payload, { progress });
      expect(later.status).toBe('succeeded');
      expect(later.continuations).toEqual([]);
      expect(progress.seen.has('load')).toBe(false);
      const queued = await runExportsPass(c, { ...payload, wait: undefined });
      expect(queued.continuations).toEqual([]);
    }
    expect(spent(c)).toEqual(before);

    // After an upgrade that reads it (here: the file's header as the new version would read it),
    // --reload reads the kept file again: no new export, no download.
    const path = file['path'] as string;
    writeFileSync(path, readFileSync(path, 'utf8').replace(/^identifier,/, 'txHash,'));
    const reload = await runExportsPass(c, { ...payload, reload: 'treasury' });
    expect(reload.status).toBe('succeeded');
    expect(spent(c)).toEqual(before);
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
    expect(await c.store.get('SELECT load_status, load_error FROM export_files')).toEqual({
      load_status: 'loaded',
      load_error: null,
    });
  });

  it('--reload of a name no definition or operation has fails naming the definitions', async () => {
    const { c, dir } = await setup({});
    const run = await runExportsPass(c, { ...evmExportPayload(dir), reload: 'tresury' });
    expect(run.status).toBe('failed');
    expect(run.error?.message).toBe(
      '--reload "tresury": no export definition or operation has that name; definitions: treasury',
    );
    expect(spent(c).posts).toBe(0);
  });
});

describe('exports loader: broken files', () => {
  const cases: { defect: CsvDefect; reason: RegExp }[] = [
    { defect: 'nulByte', reason: /byte \d+: a NUL byte \(0x00\), not CSV text/ },
    { defect: 'invalidUtf8', reason: /byte \d+: 0xff is not valid UTF-8 text/ },
    { defect: 'quoteInCell', reason: /not valid CSV \(INVALID_OPENING_QUOTE\): Invalid Opening Quote/ },
    { defect: 'shortLastRow', reason: /not valid CSV \(CSV_RECORD_INCONSISTENT_FIELDS_LENGTH\)/ },
  ];
  for (const { defect, reason } of cases) {
    it(`${defect}: downloaded again, downloadAttempts copies in all, then failed with the reason; later runs spend nothing`, async () => {
      const { c, dir } = await setup({ fileDefect: defect });
      const payload = { ...evmExportPayload(dir), downloadAttempts: 3 };
      const run = await runExportsPass(c, payload);
      expect(run.status).toBe('failed');
      expect(run.error?.message).toMatch(reason);
      expect(run.error?.message).toMatch(
        /3 downloaded copies were broken \(downloadAttempts 3\): given up until `run exports --reload treasury`/,
      );
      expect(spent(c)).toEqual({ posts: 1, statusReads: 1, downloads: 3 });
      const file = (await c.store.get<Row>('SELECT * FROM export_files'))!;
      expect(file).toMatchObject({ load_status: 'failed', broken_copies: 3, loaded_at: null });
      expect(file['load_error']).toMatch(reason);
      expect(existsSync(file['path'] as string)).toBe(false);
      // Refused before the store, the same on both (SQLite would keep a NUL; PostgreSQL refuses
      // it, 22021): a file of fewer rows than a batch stores none.
      expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(0);

      const again = await runExportsPass(c, payload);
      expect(again.status).toBe('succeeded');
      expect(spent(c)).toEqual({ posts: 1, statusReads: 1, downloads: 3 });
    });
  }

  it('wideHeader (1,000 columns named with 1,000 characters): unsupported, nothing read past the header, not downloaded again', async () => {
    const { c, dir } = await setup({ fileDefect: 'wideHeader', rowsPerDay: 500 });
    const payload = evmExportPayload(dir);
    const run = await runExportsPass(c, payload);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(/1000 columns the collector cannot place, more than 256/);
    expect(await c.store.get('SELECT load_status AS s FROM export_files')).toEqual({ s: 'unsupported' });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(0);
    const again = await runExportsPass(c, payload);
    expect(again.status).toBe('succeeded');
    expect(spent(c)).toEqual({ posts: 1, statusReads: 1, downloads: 1 });
  });

  it('a failed file is downloaded again by --reload, and loads when the copy is good', async () => {
    const { c, dir } = await setup(
      {},
      { faults: { endpoints: { download: { plan: [{ kind: 'malformed' }, { kind: 'malformed' }] } } } },
    );
    const payload = { ...evmExportPayload(dir), downloadAttempts: 2 };
    expect((await runExportsPass(c, payload)).status).toBe('failed');
    expect(await c.store.get('SELECT load_status, broken_copies FROM export_files')).toEqual({
      load_status: 'failed',
      broken_copies: 2,
    });
    await refreshExportSummaries(c.store);
    expect((await readExportSummaries(c.store))[0]?.files).toEqual({ failed: 1 });

    // As `run exports --reload treasury` runs it (src/commands/run.ts): the job by its definition,
    // the flag as job data, the continuations in-process.
    const { wait: _wait, ...section } = payload;
    const config = {
      jobs: { exports: { ...section, schedule: '0 * * * *', enabled: true, runOnStart: false } },
      setAside: setAsideSchema.parse({}),
    };
    const reload = await runJob(exportsDefinition, c.deps, {
      config: config as unknown as Config,
      jobs: [exportsDefinition, exportPollDefinition],
      args: { reload: 'treasury' },
      followUps: 'until-done',
    });
    expect(reload.status).toBe('succeeded');
    expect(spent(c)).toEqual({ posts: 1, statusReads: 1, downloads: 3 });
    expect(await c.store.get('SELECT load_status, broken_copies FROM export_files')).toEqual({
      load_status: 'loaded',
      broken_copies: 0,
    });
    expect(await count(c, 'SELECT COUNT(*) AS n FROM exported_transactions')).toBe(500);
  });
});

describe('exports: a run after one that stopped at maxWait', () => {
  it('reads the RUNNING operation status at once, not after the poll interval', async () => {
    const { c, dir } = await setup({ runningMs: 3_600_000 });
    // maxWait below the first poll interval: the first run stops before any status read.
    const payload = {
      ...evmExportPayload(dir),
      pollInterval: 60_000,
      maxPollInterval: 60_000,
      maxWait: 1_000,
    };
    const first = await runExportsPass(c, payload);
    expect(first.status).toBe('failed');
    expect(first.error?.message).toMatch(/1 operations still pending after waiting 1000 ms/);
    expect(spent(c)).toEqual({ posts: 1, statusReads: 0, downloads: 0 });

    const second = await runExportsPass(c, payload);
    expect(second.status).toBe('failed');
    expect(spent(c)).toEqual({ posts: 1, statusReads: 1, downloads: 0 });
    expect(await count(c, 'SELECT status_reads AS n FROM export_operations')).toBe(1);
  });
});
