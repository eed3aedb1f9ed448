/**
 * Export download and load (issue 9, figure 4).
 *
 * A 1 GiB CSV shaped like the simulator's EVM export, served by a plain static file server
 * (node:http + fs.createReadStream, in its own process, on loopback):
 * - download: the collector's `downloadToFile` (streamed, sha256 on the way) against `curl -o` of
 *   the same URL, median of 3 each; goal ≥ 0.8 × curl's throughput;
 * - memory: peak RSS growth of this process during the collector's download; goal ≤ 64 MiB;
 * - load: `loadExportFile` into exported_transactions against the same rows parsed by the same
 *   csv-parse and written by one raw prepared INSERT per row in 5,000-row transactions, into an
 *   identical fresh database; goal ≤ 1.2 × the baseline's time.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Database from 'better-sqlite3';
import { parse } from 'csv-parse';
import { getTableColumns } from 'drizzle-orm';
import { storeLocation } from '../../src/config/index.js';
import { loadExportFile } from '../../src/exports/csv-load.js';
import { downloadToFile } from '../../src/exports/download.js';
import { csvLine, evmColumns, exportRow } from '../../src/simulator/csv.js';
import { openStore, tables } from '../../src/store/index.js';
import { tempDir } from '../../test/support/tmp.js';
import { benchOptions, type Cost, cost, type Figure, figure, median, scaled } from '../lib.js';
import { rawSqlite } from '../support.js';

const MiB = 1024 * 1024;

export async function run(): Promise<Figure[]> {
  const { dir, cleanup } = tempDir('glacier-bench-export-');
  const source = join(dir, 'export.csv');
  let server: ChildProcess | undefined;
  try {
    // 1 GiB at scale 1 (`--scale` for a quick look; the smoke test's is a few hundred KiB).
    const rows = await writeCsv(source, scaled(1024 * MiB, 64 * 1024));
    const RUNS = benchOptions().runs;
    const size = statSync(source).size;
    const started = await serve(source);
    server = started.child;
    const url = `${started.url}/export.csv`;

    // Warm the page cache and both clients once.
    await curl(url, join(dir, 'warm.csv'));
    await downloadToFile(url, join(dir, 'warm.csv'));

    const curlRuns: Cost[] = [];
    const ourRuns: Cost[] = [];
    let peakRss = 0;
    const viaCurl = async (i: number) => {
      const path = join(dir, `curl-${i}.csv`);
      settle();
      curlRuns.push(await cost(() => curl(url, path)));
      rmSync(path);
    };
    const viaCollector = async (i: number) => {
      const path = join(dir, `ours-${i}.csv`);
      settle();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      ourRuns.push(await cost(() => downloadToFile(url, path)));
      clearInterval(sampler);
      peakRss = Math.max(peakRss, Math.max(peak, process.memoryUsage().rss) - before);
      rmSync(path);
    };
    // Alternate who goes first, so neither always pays for the other's writeback.
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        await viaCurl(i);
        await viaCollector(i);
      } else {
        await viaCollector(i);
        await viaCurl(i);
      }
    }
    const throughput = (c: Cost) => size / MiB / (c.wallMs / 1000);
    const ours = median(ourRuns.map(throughput));
    const theirs = median(curlRuns.map(throughput));
    const ourCpu = median(ourRuns.map((c) => c.cpuMs));
    const ourBytes = median(ourRuns.map((c) => c.bytesWritten));

    const load = await measureLoad(dir, source, rows);

    return [
      figure({
        id: 'exports.download.throughput',
        title: `Export download, ${(size / MiB).toFixed(0)} MiB CSV (median of ${RUNS})`,
        unit: 'MiB/s',
        value: ours,
        baseline: theirs,
        baselineLabel: 'curl -o, same URL',
        goal: { min: 0.8 },
        note: `collector CPU ${Math.round(ourCpu)} ms, ${Math.round(ourBytes / MiB)} MiB written (sha256 included); curl wall ${Math.round(median(curlRuns.map((c) => c.wallMs)))} ms`,
      }),
      figure({
        id: 'exports.download.rss',
        title: 'Export download, peak RSS growth',
        unit: 'MiB',
        value: peakRss / MiB,
        baseline: size / MiB,
        baselineLabel: 'file size',
        goal: { on: 'value', max: 64 },
      }),
      figure({
        id: 'exports.load.rate',
        title: `Export CSV load into exported_transactions (${rows.toLocaleString('en')} rows)`,
        unit: 'ms',
        value: load.ours.wallMs,
        baseline: load.raw.wallMs,
        baselineLabel: 'csv-parse + raw prepared INSERT, same rows',
        goal: { max: 1.2 },
        note: `collector ${Math.round(rows / (load.ours.wallMs / 1000)).toLocaleString('en')} rows/s, CPU ${Math.round(load.ours.cpuMs)} ms, ${Math.round(load.ours.bytesWritten / MiB)} MiB written; baseline ${Math.round(rows / (load.raw.wallMs / 1000)).toLocaleString('en')} rows/s, CPU ${Math.round(load.raw.cpuMs)} ms, ${Math.round(load.raw.bytesWritten / MiB)} MiB written; csv-parse alone ${Math.round(load.parseMs)} ms`,
      }),
    ];
  } finally {
    server?.kill();
    cleanup();
  }
}

/** Rows shaped like the simulator's EVM export (its own row builder), with unique hashes. */
async function writeCsv(path: string, bytes: number): Promise<number> {
  const request = {
    type: 'TRANSACTION_EXPORT_EVM' as const,
    addresses: ['0x00000000000000000000000000000000000000aa'],
    includeChains: ['43114'],
  };
  const templates = Array.from({ length: 1000 }, (_, r) => exportRow(7, request, 1000, 20_000, r));
  const out = createWriteStream(path, { highWaterMark: MiB });
  let written = 0;
  let rows = 0;
  const header = `${evmColumns.join(',')}\n`;
  out.write(header);
  written += header.length;
  while (written < bytes) {
    let chunk = '';
    for (let i = 0; i < 2000; i++, rows++) {
      const row = templates[rows % templates.length] as Record<string, string>;
      // In time order, as an export file is: ten transactions a second from the template's day.
      const own: Record<string, string> = {
        ...row,
        txHash: `0x${rows.toString(16).padStart(64, '0')}`,
        blockTimestamp: String(1_728_000_000 + Math.floor(rows / 10)),
        blockNumber: String(51_966_400 + Math.floor(rows / 20)),
      };
      chunk += csvLine(evmColumns.map((c) => own[c] ?? ''));
    }
    written += chunk.length;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  return rows;
}

/** Flushes dirty pages (the previous file) so each download starts from the same state. */
function settle(): void {
  execFileSync('sync');
}

/** A plain static file server in its own process, as a download host would be. */
async function serve(path: string): Promise<{ child: ChildProcess; url: string }> {
  const script = `
    const http = require('node:http'); const fs = require('node:fs');
    const size = fs.statSync(${JSON.stringify(path)}).size;
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': size });
      fs.createReadStream(${JSON.stringify(path)}).pipe(res);
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`static server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

function curl(url: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-sS', '--fail', '-o', path, url], { stdio: 'inherit' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`curl exited with ${code}`))));
  });
}

async function measureLoad(dir: string, source: string, rows: number) {
  const parseMs = (
    await cost(() =>
      pipeline(
        createReadStream(source, { highWaterMark: MiB }),
        parse(),
        new Writable({ objectMode: true, write: (_r, _e, done) => done() }),
      ),
    )
  ).wallMs;

  const rawStore = await openStore(storeLocation(join(dir, 'raw.db')));
  const raw = await cost(() => rawLoad(rawSqlite(rawStore), source));
  await rawStore.close();
  rmSync(join(dir, 'raw.db'), { force: true });

  const store = await openStore(storeLocation(join(dir, 'collector.db')));
  await store.run(
    `INSERT INTO export_files (operation_id, path, size_bytes, sha256, downloaded_at) VALUES ('op', ?, 0, '', '')`,
    [source],
  );
  let loaded = 0;
  const ours = await cost(async () => {
    loaded = (
      await loadExportFile(
        store,
        { path: source, operationId: 'op', exportName: 'bench', operationType: 'TRANSACTION_EXPORT_EVM' },
        { at: () => new Date().toISOString() },
      )
    ).added;
  });
  await store.close();
  if (loaded !== rows) throw new Error(`loaded ${loaded} rows of ${rows}`);
  return { ours, raw, parseMs };
}

/**
 * The floor: the same parser, positional mapping without checks, a plain prepared INSERT. Its
 * column list is the Drizzle table's (`tables.exportedTransactions`), each value named by column,
 * so a column added to the table is in the INSERT too (NULL unless given here).
 */
async function rawLoad(sqlite: Database.Database, source: string): Promise<void> {
  const columns = Object.entries(getTableColumns(tables.exportedTransactions));
  const insert = sqlite.prepare(
    `INSERT INTO exported_transactions (${columns.map(([, c]) => `"${c.name}"`).join(',')}) VALUES (${columns.map(() => '?').join(',')})`,
  );
  const write = sqlite.transaction((batch: unknown[][]) => {
    for (const row of batch) insert.run(row);
  });
  const index = (name: string) => (evmColumns as readonly string[]).indexOf(name);
  // Positions of the simulator's columns, in the order the simulator writes them.
  const [tx, bn, ts, bh, ch, bi, st, ty, fr, to, va, gl, gu, gp, no, ct, mh, mn] = evmColumns.map(
    index,
  ) as number[];
  const valuesOf = (r: string[]): Partial<Record<string, unknown>> => ({
    exportName: 'bench',
    chainId: r[ch!],
    txHash: r[tx!],
    operationId: 'op',
    blockTimestamp: Number(r[ts!]),
    txType: r[ty!],
    blockNumber: r[bn!],
    blockHash: r[bh!],
    blockIndex: Number(r[bi!]),
    txStatus: r[st!],
    fromAddress: r[fr!],
    toAddress: r[to!],
    value: r[va!],
    gasLimit: r[gl!],
    gasUsed: r[gu!],
    gasPrice: r[gp!],
    nonce: r[no!],
    methodCallType: r[ct!] || null,
    methodHash: r[mh!] || null,
    methodName: r[mn!] || null,
    // addresses, amount, asset id, extra...: none in an EVM file of the simulator's columns.
  });
  const keys = columns.map(([key]) => key);
  let batch: unknown[][] = [];
  let header = true;
  await pipeline(
    createReadStream(source, { highWaterMark: MiB }),
    parse(),
    new Writable({
      objectMode: true,
      write(r: string[], _e, done) {
        if (header) header = false;
        else {
          const values = valuesOf(r);
          batch.push(keys.map((k) => values[k] ?? null));
          if (batch.length >= 5_000) {
            write(batch);
            batch = [];
          }
        }
        done();
      },
      final(done) {
        write(batch);
        done();
      },
    }),
  );
}
