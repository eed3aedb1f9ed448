/**
 * Loads a downloaded export CSV into exported_transactions: parsed by csv-parse as a stream (a
 * multi-GiB file is never in memory), mapped by its header's column names (unknown extra columns
 * are ignored, missing ones are an error naming them), written in batches of one transaction each.
 */
import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import {
  createExportedTransactionsWriter,
  type ExportedColumn,
  exportedColumns,
  type Store,
} from '../store/index.js';

/** The file is not an export CSV the collector can read (cut short, a broken row, a missing column). */
export class ExportFileError extends Error {
  override readonly name = 'ExportFileError';
}

/** Rows per transaction: large enough to amortize the commit, small enough not to hold the write lock long. */
const BATCH_ROWS = 5_000;

type Cell = (record: string[], line: number) => string | number | null;

interface ColumnRule {
  /** The CSV header name. */
  from: string;
  kind: 'text' | 'optional' | 'integer' | 'decimal';
}

/** CSV columns of each kind of export file (see the simulator's csv.ts) → table columns. */
const evmRules: Partial<Record<ExportedColumn, ColumnRule>> = {
  chainId: { from: 'chainId', kind: 'text' },
  txHash: { from: 'txHash', kind: 'text' },
  blockTimestamp: { from: 'blockTimestamp', kind: 'integer' },
  txType: { from: 'txType', kind: 'text' },
  blockNumber: { from: 'blockNumber', kind: 'decimal' },
  blockHash: { from: 'blockHash', kind: 'text' },
  blockIndex: { from: 'blockIndex', kind: 'integer' },
  txStatus: { from: 'txStatus', kind: 'text' },
  fromAddress: { from: 'from', kind: 'text' },
  toAddress: { from: 'to', kind: 'text' },
  value: { from: 'value', kind: 'decimal' },
  gasLimit: { from: 'gasLimit', kind: 'decimal' },
  gasUsed: { from: 'gasUsed', kind: 'decimal' },
  gasPrice: { from: 'gasPrice', kind: 'decimal' },
  nonce: { from: 'nonce', kind: 'decimal' },
  methodCallType: { from: 'callType', kind: 'optional' },
  methodHash: { from: 'methodHash', kind: 'optional' },
  methodName: { from: 'methodName', kind: 'optional' },
};

const primaryNetworkRules: Partial<Record<ExportedColumn, ColumnRule>> = {
  chainId: { from: 'chain', kind: 'text' },
  txHash: { from: 'txHash', kind: 'text' },
  blockTimestamp: { from: 'blockTimestamp', kind: 'integer' },
  txType: { from: 'txType', kind: 'text' },
  addresses: { from: 'addresses', kind: 'text' },
  amount: { from: 'amount', kind: 'decimal' },
  assetId: { from: 'assetId', kind: 'text' },
};

const DIGITS = /^\d+$/;

function cell(rule: ColumnRule, index: number): Cell {
  const bad = (line: number, value: string) =>
    new ExportFileError(
      `line ${line}, column ${rule.from}: ${JSON.stringify(value.slice(0, 80))} is not ${
        rule.kind === 'text' ? 'a value' : 'a whole number'
      }`,
    );
  switch (rule.kind) {
    case 'text':
      return (r, line) => {
        const v = r[index] as string;
        if (v === '') throw bad(line, v);
        return v;
      };
    case 'optional':
      return (r) => (r[index] === '' ? null : (r[index] as string));
    case 'integer':
      return (r, line) => {
        const v = r[index] as string;
        if (!DIGITS.test(v) || v.length > 15) throw bad(line, v);
        return Number(v);
      };
    case 'decimal':
      // Exact decimal text, never a float: wei amounts pass 2^53.
      return (r, line) => {
        const v = r[index] as string;
        if (!DIGITS.test(v)) throw bad(line, v);
        return v;
      };
    default: {
      const never: never = rule.kind;
      throw new Error(`unknown column kind ${String(never)}`);
    }
  }
}

/** Builds the row mapper from the header line; throws naming every missing column. */
function rowMapper(
  header: string[],
  operationType: string,
  fixed: { exportName: string; operationId: string },
): (record: string[], line: number) => unknown[] {
  const rules = operationType === 'TRANSACTION_EXPORT_EVM' ? evmRules : primaryNetworkRules;
  const missing = Object.values(rules)
    .map((r) => r.from)
    .filter((name) => !header.includes(name));
  if (missing.length > 0) {
    throw new ExportFileError(
      `the header lacks column(s) ${missing.join(', ')} of a ${operationType} file (header: ${header.join(',').slice(0, 200)})`,
    );
  }
  const cells: Cell[] = exportedColumns.map((column) => {
    if (column === 'exportName') return () => fixed.exportName;
    if (column === 'operationId') return () => fixed.operationId;
    const rule = rules[column];
    return rule ? cell(rule, header.indexOf(rule.from)) : () => null;
  });
  return (record, line) => {
    const row = new Array<unknown>(cells.length);
    for (let i = 0; i < cells.length; i++) row[i] = (cells[i] as Cell)(record, line);
    return row;
  };
}

export interface LoadOptions {
  signal?: AbortSignal | undefined;
  /** The time recorded as `loaded_at`. */
  at: () => string;
  /** New rows committed, after each batch's commit. */
  onCommit?: (added: number) => void;
  /** Bytes of the file parsed so far. */
  onProgress?: (bytes: number) => void;
}

/**
 * Loads one downloaded file. Each batch commits on its own (other jobs keep writing meanwhile); the
 * last batch and the file's `rows_loaded`/`loaded_at` commit together. A re-load (after a crash
 * half-way) adds only the rows not yet in: the natural key skips the others.
 */
export async function loadExportFile(
  store: Store,
  file: { path: string; operationId: string; exportName: string; operationType: string },
  options: LoadOptions,
): Promise<{ rows: number; added: number }> {
  const writer = createExportedTransactionsWriter(store);
  const parser = parse({ bom: true, skip_empty_lines: true, max_record_size: 1024 * 1024 });
  let map: ((record: string[], line: number) => unknown[]) | undefined;
  let batch: unknown[][] = [];
  let rows = 0;
  let added = 0;
  const commit = (n: number) => {
    added += n;
    options.onCommit?.(n);
    options.onProgress?.(parser.info.bytes);
  };
  const failed = (done: (err?: Error | null) => void) => (err: unknown) =>
    done(err instanceof Error ? err : new Error(String(err)));
  // A full batch is written before the next record is taken (the parser waits meanwhile); the
  // records in between stay synchronous, the hot path of a multi-GiB file.
  const sink = new Writable({
    objectMode: true,
    highWaterMark: 1024,
    write(record: string[], _enc, done) {
      try {
        if (!map) {
          map = rowMapper(record, file.operationType, file);
          return done();
        }
        batch.push(map(record, parser.info.lines));
        rows++;
        if (batch.length < BATCH_ROWS) return done();
        const full = batch;
        batch = [];
        writer
          .insert(full)
          .then(commit)
          .then(() => done(), failed(done));
      } catch (err) {
        failed(done)(err);
      }
    },
    final(done) {
      if (!map) return done(new ExportFileError('the file is empty: not even a header row'));
      writer
        .finish(batch, { operationId: file.operationId, rowsLoaded: rows, loadedAt: options.at() })
        .then(commit)
        .then(() => done(), failed(done));
    },
  });
  try {
    await pipeline(createReadStream(file.path, { highWaterMark: 1024 * 1024 }), parser, sink, {
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof ExportFileError) {
      throw new ExportFileError(`export file ${file.path}: ${err.message}`, { cause: err });
    }
    if ((err as { code?: string }).code?.startsWith('CSV_')) {
      throw new ExportFileError(`export file ${file.path} is not valid CSV: ${(err as Error).message}`, {
        cause: err,
      });
    }
    throw err;
  }
  return { rows, added };
}
