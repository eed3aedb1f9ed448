/**
 * The CSV file of a finished export, generated row by row and streamed with backpressure: rows are
 * pure functions of (seed, request, day, row), so a multi-GiB file is never held in memory.
 *
 * EVM rows are built by the same function as the `/v1/transactions` items (data/evm.ts): each row
 * involves one of the requested addresses (as sender or recipient, alternately) on one of the
 * included chains, at evenly spaced times of its day. Primary-network rows carry P/X-Chain ids.
 */
import { Readable } from 'node:stream';
import { BLOCK_MS, type ChainInfo, findChain } from './data/chains.js';
import { buildTransaction } from './data/evm.js';
import { FAILED_SHARE } from './data/transactions.js';
import type { ExportRequest } from './export-request.js';
import type { ExportedRange } from './exports.js';
import { deriveBech32Address, deriveCb58Id, hash32, hashString, pick, unit } from './ids.js';

const DAY_MS = 86_400_000;

export const evmColumns = [
  'txHash',
  'blockNumber',
  'blockTimestamp',
  'blockHash',
  'chainId',
  'blockIndex',
  'txStatus',
  'txType',
  'from',
  'to',
  'value',
  'gasLimit',
  'gasUsed',
  'gasPrice',
  'nonce',
  'callType',
  'methodHash',
  'methodName',
] as const;

export const primaryNetworkColumns = [
  'txHash',
  'chain',
  'txType',
  'blockTimestamp',
  'addresses',
  'amount',
  'assetId',
] as const;

const primaryTxTypes: Readonly<Record<string, readonly string[]>> = {
  TRANSACTION_EXPORT_PRIMARY_NETWORK: [
    'BaseTx',
    'ImportTx',
    'ExportTx',
    'AddPermissionlessDelegatorTx',
    'RewardValidatorTx',
  ],
  TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING: [
    'AddPermissionlessDelegatorTx',
    'AddPermissionlessValidatorTx',
    'RewardValidatorTx',
  ],
  TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE: ['BaseTx', 'ImportTx', 'ExportTx'],
};

/**
 * The P-Chain transaction types of auto-renewed staking (ACP-236), which the next SDK release adds
 * (shared/reference/auto-renewed-staking.md): served in Primary Network files under the drift fault
 * only, as no public API document lists them yet.
 */
export const AUTO_RENEWED_TX_TYPES = [
  'AddAutoRenewedValidatorTx',
  'SetAutoRenewedValidatorConfigTx',
  'RewardAutoRenewedValidatorTx',
] as const;

export type CsvRow = Record<string, string>;

export function columnsOf(request: ExportRequest): readonly string[] {
  return request.type === 'TRANSACTION_EXPORT_EVM' ? evmColumns : primaryNetworkColumns;
}

/** A key that ties rows to what was asked, not to the operation: the same request exports the same rows. */
function requestKey(request: ExportRequest): number {
  return hashString(
    JSON.stringify([request.type, request.addresses, request.cChainEvmAddresses, request.includeChains]),
  );
}

function chainInfo(chainId: string): ChainInfo {
  return findChain(chainId) ?? { chainId, weight: 0, anchorBlock: 1_000_000 };
}

/** Row `r` of day `day` (days since the epoch). */
export function exportRow(
  seed: number,
  request: ExportRequest,
  rowsPerDay: number,
  day: number,
  r: number,
): CsvRow {
  const key = requestKey(request);
  const timeMs = day * DAY_MS + Math.floor((r * DAY_MS) / rowsPerDay);
  const chains = request.includeChains.length > 0 ? request.includeChains : ['43114'];
  const chainId = chains[r % chains.length] as string;
  if (request.type === 'TRANSACTION_EXPORT_EVM') {
    const address =
      request.addresses.length > 0 ? request.addresses[r % request.addresses.length] : undefined;
    const tx = buildTransaction({
      seed,
      key: `export:${key}:${day}:${r}`,
      chain: chainInfo(chainId),
      slotMs: Math.floor(timeMs / BLOCK_MS) * BLOCK_MS,
      blockIndex: hash32(seed, key, day, r) % 40,
      failed: unit(hash32(seed, key, day, r, 7)) < FAILED_SHARE,
      ...(address === undefined ? {} : { party: { address, as: r % 2 === 0 ? 'from' : 'to' } }),
    });
    return {
      txHash: tx.txHash,
      blockNumber: tx.blockNumber,
      blockTimestamp: String(tx.blockTimestamp),
      blockHash: tx.blockHash,
      chainId: tx.chainId,
      blockIndex: String(tx.blockIndex),
      txStatus: tx.txStatus,
      txType: String(tx.txType),
      from: tx.from.address,
      to: tx.to.address,
      value: tx.value,
      gasLimit: tx.gasLimit,
      gasUsed: tx.gasUsed,
      gasPrice: tx.gasPrice,
      nonce: tx.nonce,
      callType: tx.method?.callType ?? '',
      methodHash: tx.method?.methodHash ?? '',
      methodName: tx.method?.methodName ?? '',
    };
  }
  const h = hash32(seed, key, day, r);
  const address =
    request.addresses.length > 0
      ? (request.addresses[r % request.addresses.length] as string).replace(/^[PXC]-/, '')
      : deriveBech32Address('avax', seed, 'export', key, day, r);
  return {
    txHash: deriveCb58Id(seed, 'export', key, day, r),
    chain: chainId,
    txType: pick(unit(h), primaryTxTypes[request.type] ?? ['BaseTx']),
    blockTimestamp: String(Math.floor(timeMs / 1000)),
    addresses: address,
    amount: String(1_000_000 + (hash32(seed, key, day, r, 1) % 2_000_000_000) * 1_000),
    assetId: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
  };
}

/** Every row of an exported range, in file order. */
export function* exportRows(seed: number, range: ExportedRange, rowsPerDay: number): Generator<CsvRow> {
  for (let day = range.firstDay; day <= range.lastDay; day++) {
    for (let r = 0; r < rowsPerDay; r++) yield exportRow(seed, range.record.request, rowsPerDay, day, r);
  }
}

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvLine(cells: readonly string[]): string {
  return cells.map(csvField).join(',') + '\n';
}

/**
 * A fault on a download: `truncate` (half the file, then the connection drops), `malformed` (a
 * broken row), `extraFields` (a column more), `badRecord` (the middle row without its key), `drift`
 * (a CRLF header over rows ending in LF, CRLF or CR, a `__proto__` column and one more, the middle
 * row's block time out of bounds).
 */
export type CsvMutation = 'none' | 'truncate' | 'malformed' | 'extraFields' | 'badRecord' | 'drift';

/**
 * One column of a file laid out otherwise than the simulator's own: a header cell and what the
 * rows hold under it, a field of the row (csv.ts's names: `txHash`, `from`...) or a fixed value.
 * A bare string is a field under its own name.
 */
export type CsvColumnSpec = string | { header: string; field?: string; value?: string };

/**
 * A defect in every file, at its middle row (or its last): a NUL byte in a cell, a byte that is
 * not UTF-8, a quote inside an unquoted cell (csv-parse's INVALID_OPENING_QUOTE), a last row cut
 * short (fewer cells than the header, no final newline); or in its header: `wideHeader`, 1,000
 * more columns named with 1,000 characters each, a cell each in every row.
 */
export type CsvDefect = 'nulByte' | 'invalidUtf8' | 'quoteInCell' | 'shortLastRow' | 'wideHeader';

/** The `wideHeader` defect's columns: how many, and how long their names are. */
const WIDE_COLUMNS = 1_000;
const WIDE_NAME = 1_000;

export interface CsvStreamOptions {
  seed: number;
  range: ExportedRange;
  rowsPerDay: number;
  mutation: CsvMutation;
  columns?: readonly CsvColumnSpec[] | undefined;
  defect?: CsvDefect | undefined;
  /** Called with the bytes produced when the stream ends (halfway with the truncate fault). */
  onEnd?: (bytes: number) => void;
}

/** Rows pushed per read() call: large enough to amortise, small enough to keep memory flat. */
const BATCH_ROWS = 256;

function layout(
  request: ExportRequest,
  specs: readonly CsvColumnSpec[] | undefined,
): { header: string[]; cells: (row: CsvRow) => string[] } {
  const columns = (specs ?? columnsOf(request)).map((c) =>
    typeof c === 'string' ? { header: c, field: c, value: undefined } : c,
  );
  return {
    header: columns.map((c) => c.header),
    cells: (row) => columns.map((c) => c.value ?? (c.field === undefined ? '' : (row[c.field] ?? ''))),
  };
}

/** Marks a cell where a byte that is not UTF-8 goes (replaced when the chunk becomes bytes). */
const NOT_UTF8 = '\uE000';

export function createCsvStream(options: CsvStreamOptions): Readable {
  const { range, mutation, defect } = options;
  const { header: columns, cells: cellsOf } = layout(range.record.request, options.columns);
  const drift = mutation === 'drift';
  const wide = defect === 'wideHeader';
  const header = [
    ...columns,
    ...(mutation === 'extraFields' ? ['simFutureColumn'] : []),
    ...(drift ? ['simDriftColumn', '__proto__'] : []),
    ...(wide
      ? Array.from(
          { length: WIDE_COLUMNS },
          (_, i) => `${String(i).padStart(4, '0')}${'w'.repeat(WIDE_NAME - 4)}`,
        )
      : []),
  ];
  const normalized = columns.map((c) => c.toLowerCase().replace(/[^a-z0-9]/g, ''));
  const keyAt = Math.max(0, normalized.indexOf('txhash'));
  const timeAt = normalized.indexOf('blocktimestamp');
  const txTypeAt = normalized.indexOf('txtype');
  /** What a mutation or defect adds to, or changes in, a row's cells. */
  const shaped = (cells: string[], i: number): string[] => {
    const out = [...cells];
    if (mutation === 'badRecord' && i === Math.floor(total / 2)) out[keyAt] = '';
    if (drift && i === Math.floor(total / 2) && timeAt !== -1) out[timeAt] = '99999999999';
    // Drift in a Primary Network file: a type no public document lists yet, on every third row.
    if (drift && txTypeAt !== -1 && i % 3 === 1 && range.record.request.type !== 'TRANSACTION_EXPORT_EVM') {
      out[txTypeAt] = AUTO_RENEWED_TX_TYPES[Math.floor(i / 3) % AUTO_RENEWED_TX_TYPES.length]!;
    }
    if (mutation === 'extraFields') out.push('future');
    if (drift) out.push('drift', 'proto-value');
    if (wide) for (let c = 0; c < WIDE_COLUMNS; c++) out.push('v');
    return out;
  };
  /** Drift's line endings: the header CRLF, then rows ending in LF, with a CRLF and a CR among them. */
  const lineOf = (cells: string[], i: number): string => {
    const line = csvLine(cells);
    if (!drift) return line;
    const ending = i % 5 === 1 ? '\r\n' : i % 7 === 3 ? '\r' : '\n';
    return line.slice(0, -1) + ending;
  };
  const rows = exportRows(options.seed, range, options.rowsPerDay);
  const total = (range.lastDay - range.firstDay + 1) * options.rowsPerDay;
  const cutAt = mutation === 'truncate' ? Math.floor(total / 2) : Number.POSITIVE_INFINITY;
  const badAt = mutation === 'malformed' ? Math.floor(total / 2) : -1;
  const defectAt = defect === 'shortLastRow' ? total - 1 : Math.floor(total / 2);
  let index = 0;
  let bytes = 0;
  let headerSent = false;
  const push = (stream: Readable, chunk: string) => {
    const data = chunk.includes(NOT_UTF8)
      ? Buffer.concat(
          chunk
            .split(NOT_UTF8)
            .flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [Buffer.from([0xff]), Buffer.from(part)])),
        )
      : Buffer.from(chunk);
    bytes += data.length;
    if (data.length > 0) stream.push(data);
  };
  const defective = (cells: string[]): string => {
    switch (defect) {
      case 'nulByte':
        return csvLine([`${cells[0] ?? ''}\0`, ...cells.slice(1)]);
      case 'invalidUtf8':
        return csvLine([`${cells[0] ?? ''}${NOT_UTF8}`, ...cells.slice(1)]);
      case 'quoteInCell':
        return `${['x"y', ...cells.slice(1).map(csvField)].join(',')}\n`;
      case 'shortLastRow':
        return cells
          .slice(0, Math.max(1, cells.length - 3))
          .map(csvField)
          .join(',');
      case 'wideHeader':
      case undefined:
        return csvLine(cells);
      default: {
        const never: never = defect;
        throw new Error(`unknown CSV defect ${String(never)}`);
      }
    }
  };

  return new Readable({
    read() {
      let chunk = '';
      if (!headerSent) {
        chunk += drift ? `${csvLine(header).slice(0, -1)}\r\n` : csvLine(header);
        headerSent = true;
      }
      for (let n = 0; n < BATCH_ROWS; n++) {
        // The truncate fault ends the stream halfway; the server then drops the connection.
        const next = index >= cutAt ? { done: true as const } : rows.next();
        if (next.done) {
          push(this, chunk);
          options.onEnd?.(bytes);
          this.push(null);
          return;
        }
        const cells = shaped(cellsOf(next.value), index);
        if (index === badAt) chunk += '"unterminated,row\n';
        else if (index === defectAt && defect !== 'wideHeader') chunk += defective(cells);
        else chunk += lineOf(cells, index);
        index++;
      }
      push(this, chunk);
    },
  });
}
