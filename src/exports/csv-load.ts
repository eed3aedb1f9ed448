/**
 * Loads a downloaded export CSV into exported_transactions: its bytes checked (no NUL, valid
 * UTF-8), parsed by csv-parse as a stream (a multi-GiB file is never in memory), mapped by its
 * header's column names (csv-columns.ts), written in batches of one transaction each.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import type { Commit, FindingsWhere } from '../kernel/index.js';
import { createExportedTransactionsWriter, type Sql, type Store } from '../store/index.js';
import type { RejectedRecord } from '../upstream/index.js';
import {
  type BuiltRow,
  ExportFileError,
  excerpt,
  planHeader,
  rowBuilder,
  UnsupportedExportFileError,
} from './csv-columns.js';

export { ExportFileError, UnsupportedExportFileError } from './csv-columns.js';

/** Rows per transaction: large enough to amortize the commit, small enough not to hold the write lock long. */
const BATCH_ROWS = 5_000;
/**
 * A batch is also written once its rows hold this many bytes, whatever their number: the memory of
 * a load is bounded by bytes, not rows (rows of a wide file are kilobytes each).
 */
export const BATCH_BYTES = 4 * 1024 * 1024;

/** Bytes at the end of `buf` that begin a UTF-8 sequence the next chunk completes. */
function incompleteTail(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back] as number;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    if (b < 0xc0) return 0;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return need > back ? back : 0;
  }
  return 0;
}

/** Where the first byte that is not UTF-8 is (called once a chunk failed `isUtf8`). */
function firstInvalidUtf8(buf: Buffer): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i] as number;
    const n =
      b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (n === 0 || (n > 1 && !isUtf8(buf.subarray(i, i + n)))) return i;
    i += n;
  }
  return buf.length;
}

/**
 * Refuses bytes no export CSV holds before the parser sees them: a NUL (PostgreSQL refuses it in
 * text, SQLite would store it; both stores treat the file as broken) and invalid UTF-8 (which a
 * decoder would silently turn into U+FFFD). Passes the bytes on unchanged; counts them.
 */
function textBytes(onBytes: (bytes: number) => void): Transform {
  let offset = 0;
  let carry = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const nul = chunk.indexOf(0);
      if (nul !== -1) {
        return done(
          new ExportFileError(`byte ${offset + carry.length + nul}: a NUL byte (0x00), not CSV text`),
        );
      }
      const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const tail = incompleteTail(data);
      const body = data.subarray(0, data.length - tail);
      if (!isUtf8(body)) {
        const at = firstInvalidUtf8(body);
        const hex = (body[at] ?? 0).toString(16).padStart(2, '0');
        return done(new ExportFileError(`byte ${offset + at}: 0x${hex} is not valid UTF-8 text`));
      }
      carry = Buffer.from(data.subarray(data.length - tail));
      offset += body.length;
      onBytes(offset);
      done(null, body);
    },
    flush(done) {
      if (carry.length > 0)
        return done(new ExportFileError(`byte ${offset}: the file ends inside a UTF-8 character`));
      done();
    },
  });
}

/** csv-parse's error as a broken file: its code, where, and a bounded excerpt of its message. */
function parseFailure(err: CsvError): ExportFileError {
  return new ExportFileError(`not valid CSV (${err.code}): ${excerpt(err.message, 200)}`, { cause: err });
}

export interface LoadOptions {
  signal?: AbortSignal | undefined;
  /** The time recorded as `loaded_at`. */
  at: () => string;
  /**
   * How each batch commits: a run's `ctx.commit`, which records the rows set aside (a key missing,
   * a value out of bounds) in their batch's transaction, counts its new rows and notes what it set
   * aside once committed. @defaultValue a plain transaction of `store`, which records nothing aside
   */
  commit?: Commit | undefined;
  /** Where the rows set aside came from (`commit`'s `where`). */
  where?: FindingsWhere | undefined;
  /** Bytes of the file read so far. */
  onProgress?: (bytes: number) => void;
}

/**
 * Loads one downloaded file. Each batch commits on its own (other jobs keep writing meanwhile); the
 * last batch and the file's `rows_loaded`/`loaded_at`/`load_status` commit together. A re-load
 * (after a crash half-way) adds only the rows not yet in: the natural key skips the others.
 * A row without its key or with a value out of bounds is set aside with its batch (`setAside`), the
 * rest of the file loads. Records end at `\r\n`, `\n` or `\r`, mixed as they come.
 * Throws UnsupportedExportFileError when the header has no usable key or too many columns it
 * cannot place (nothing is read past it), ExportFileError when the file is broken (bytes, CSV, a
 * row of another width than the header), each naming the file. An empty file (0 bytes) has no
 * rows: it loads as 0 rows.
 */
export async function loadExportFile(
  store: Store,
  file: { path: string; operationId: string; exportName: string; operationType: string },
  options: LoadOptions,
): Promise<{ rows: number; added: number; setAside: number }> {
  const writer = createExportedTransactionsWriter();
  // The record length of the header row is enforced on every row (relax_column_count off): a row
  // cut short, or with a cell too many, is CSV_RECORD_INCONSISTENT_FIELDS_LENGTH.
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    max_record_size: 1024 * 1024,
    // Any of the three line endings, per record: a file whose header ends in CRLF and rows in LF
    // (or the reverse) is read, and no `\r` is left in a last cell.
    record_delimiter: ['\r\n', '\n', '\r'],
  });
  let build: ((record: readonly string[], line: number) => BuiltRow) | undefined;
  let batch: unknown[][] = [];
  let rejected: RejectedRecord[] = [];
  let batchBytes = 0;
  let rows = 0;
  let added = 0;
  let setAside = 0;
  let bytes = 0;
  const commit: Commit = options.commit ?? ((work) => store.transaction(work));
  const write = (full: unknown[][], aside: RejectedRecord[], last: boolean) =>
    commit(
      async (tx) => {
        const n = await writer.insert(tx, full);
        if (last) {
          await writer.markLoaded(tx, {
            operationId: file.operationId,
            rowsLoaded: rows,
            loadedAt: options.at(),
          });
        }
        const findings =
          aside.length > 0 ? { endpoint: 'exportFile' as const, rejected: aside, drift: [] } : undefined;
        return { rows: n, findings };
      },
      { where: options.where },
    ).then((written) => {
      added += written?.rows ?? 0;
      setAside += aside.length;
      options.onProgress?.(bytes);
    });
  const failed = (done: (err?: Error | null) => void) => (err: unknown) =>
    done(err instanceof Error ? err : new Error(String(err)));
  // A full batch is written before the next record is taken (the parser waits meanwhile); the
  // records in between stay synchronous, the hot path of a multi-GiB file. Few records wait in
  // the sink's buffer: a record may be a megabyte.
  const sink = new Writable({
    objectMode: true,
    highWaterMark: 16,
    write(record: string[], _enc, done) {
      try {
        if (!build) {
          build = rowBuilder(planHeader(record, file.operationType), file);
          return done();
        }
        const built = build(record, parser.info.lines);
        rows++;
        if ('rejected' in built) {
          rejected.push(built.rejected);
          batchBytes += 1024;
        } else {
          batch.push(built.row);
          batchBytes += built.bytes;
        }
        if (batch.length + rejected.length < BATCH_ROWS && batchBytes < BATCH_BYTES) return done();
        const full = batch;
        const aside = rejected;
        batch = [];
        rejected = [];
        batchBytes = 0;
        write(full, aside, false).then(() => done(), failed(done));
      } catch (err) {
        failed(done)(err);
      }
    },
    final(done) {
      write(batch, rejected, true).then(() => done(), failed(done));
    },
  });
  try {
    await pipeline(
      createReadStream(file.path, { highWaterMark: 1024 * 1024 }),
      textBytes((n) => {
        bytes = n;
      }),
      parser,
      sink,
      { signal: options.signal },
    );
  } catch (err) {
    const named = (e: Error) => `export file ${file.path}: ${e.message}`;
    if (err instanceof ExportFileError) throw new ExportFileError(named(err), { cause: err });
    if (err instanceof UnsupportedExportFileError) {
      throw new UnsupportedExportFileError(named(err), { cause: err });
    }
    if (err instanceof CsvError) throw new ExportFileError(named(parseFailure(err)), { cause: err });
    throw err;
  }
  return { rows, added, setAside };
}

/**
 * A row set aside from an export file, checked again (`run exports --retry-rejected`): its cells
 * by header name are planned and built as the loader does today; a row that passes is inserted
 * through `tx`. Returns the rows added, or why it still fails.
 */
export async function restoreExportRow(
  tx: Sql,
  text: string,
  fixed: { exportName: string; operationId: string; operationType: string },
): Promise<{ stored: number } | { rejected: RejectedRecord }> {
  const fail = (problems: string): { rejected: RejectedRecord } => ({
    rejected: { raw: text, reason: 'schema', fields: ['(record)'], problems, key: undefined },
  });
  let cells: unknown;
  try {
    cells = JSON.parse(text);
  } catch {
    return fail('(record): not JSON');
  }
  if (cells === null || typeof cells !== 'object' || Array.isArray(cells))
    return fail('(record): not an object');
  const entries = Object.entries(cells as Record<string, unknown>);
  let plan: ReturnType<typeof planHeader>;
  try {
    plan = planHeader(
      entries.map(([name]) => name),
      fixed.operationType,
    );
  } catch (err) {
    if (err instanceof UnsupportedExportFileError) return fail(`(header): ${err.message}`);
    throw err;
  }
  const built = rowBuilder(plan, fixed)(
    entries.map(([, value]) => (typeof value === 'string' ? value : String(value ?? ''))),
    0,
  );
  if ('rejected' in built) return { rejected: built.rejected };
  return { stored: await createExportedTransactionsWriter().insert(tx, [built.row]) };
}
