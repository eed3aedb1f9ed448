/**
 * How an export CSV's header maps to exported_transactions. The file format is not documented
 * publicly, so it is read tolerantly: a header cell matches a column by name, ignoring case and
 * punctuation (`TxHash`, `tx_hash`, `txHash` are one name), under the simulator's name or an alias
 * taken from the API's own resources (NativeTransaction's `from.address`, `method.callType`; the
 * Primary Network's `blockchainId`...). Only the natural key is required; every other column is
 * optional (NULL when absent), and cells the collector cannot place are kept per row in `extra`.
 */
import { type ExportedColumn, exportedColumns } from '../store/index.js';

/** The file is not an export CSV the collector can read (cut short, a broken row, invalid bytes). */
export class ExportFileError extends Error {
  override readonly name = 'ExportFileError';
}

/** The file is intact but its header has no usable key: a format this version cannot read. */
export class UnsupportedExportFileError extends Error {
  override readonly name = 'UnsupportedExportFileError';
}

/** `TxHash`, `tx_hash`, `tx-hash`, `Tx Hash` → `txhash`. */
export function normalizeHeaderName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** How a cell becomes a column value; `undefined`: it does not fit (the raw text goes to `extra`). */
type Convert = (value: string) => string | number | undefined;

const DIGITS = /^\d+$/;
const HEX = /^0x[0-9a-f]+$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

const text: Convert = (v) => v;

/**
 * Exact decimal text, never a float (wei passes 2^53); hex (`0x…`) is turned into decimal. At most
 * 100 digits (a uint256 has 78): PostgreSQL's numeric would refuse what SQLite keeps.
 */
const decimal: Convert = (v) => {
  if (v.length > 100) return undefined;
  if (DIGITS.test(v)) return v.length > 1 && v.startsWith('0') ? v.replace(/^0+(?=\d)/, '') : v;
  if (HEX.test(v) && v.length <= 66) return BigInt(v).toString();
  return undefined;
};

/** A whole number that fits a double exactly (positions, Unix seconds). */
const integer: Convert = (v) => {
  if (DIGITS.test(v) && v.length <= 15) return Number(v);
  if (HEX.test(v) && v.length <= 14) return Number.parseInt(v.slice(2), 16);
  return undefined;
};

/** Unix seconds, or an ISO-8601 time turned into Unix seconds. */
const unixSeconds: Convert = (v) => {
  const n = integer(v);
  if (n !== undefined || !ISO_TIME.test(v)) return n;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
};

interface ColumnRule {
  column: ExportedColumn;
  /** Header names it answers to, best first (the simulator's own first); matched normalized. */
  names: readonly string[];
  convert: Convert;
}

const KEY_COLUMNS = ['txHash', 'chainId'] as const satisfies readonly ExportedColumn[];

/** EVM files: the simulator's columns, with NativeTransaction's names (`from.address`...) as aliases. */
const evmRules: readonly ColumnRule[] = [
  { column: 'txHash', names: ['txHash', 'hash', 'transactionHash'], convert: text },
  { column: 'chainId', names: ['chainId', 'chain', 'evmChainId', 'blockchainId'], convert: text },
  { column: 'blockTimestamp', names: ['blockTimestamp', 'timestamp'], convert: unixSeconds },
  { column: 'txType', names: ['txType', 'transactionType'], convert: text },
  { column: 'blockNumber', names: ['blockNumber', 'blockHeight'], convert: decimal },
  { column: 'blockHash', names: ['blockHash'], convert: text },
  { column: 'blockIndex', names: ['blockIndex', 'transactionIndex', 'txIndex'], convert: integer },
  { column: 'txStatus', names: ['txStatus', 'status'], convert: text },
  { column: 'fromAddress', names: ['from', 'fromAddress', 'from.address', 'sender'], convert: text },
  { column: 'toAddress', names: ['to', 'toAddress', 'to.address', 'recipient'], convert: text },
  { column: 'value', names: ['value'], convert: decimal },
  { column: 'gasLimit', names: ['gasLimit', 'gas'], convert: decimal },
  { column: 'gasUsed', names: ['gasUsed'], convert: decimal },
  { column: 'gasPrice', names: ['gasPrice'], convert: decimal },
  { column: 'nonce', names: ['nonce'], convert: decimal },
  { column: 'methodCallType', names: ['callType', 'method.callType'], convert: text },
  { column: 'methodHash', names: ['methodHash', 'method.methodHash'], convert: text },
  { column: 'methodName', names: ['methodName', 'method.methodName'], convert: text },
];

/** Primary Network files: `chain` is the documented name; `blockchainId` is the API's elsewhere. */
const primaryNetworkRules: readonly ColumnRule[] = [
  { column: 'txHash', names: ['txHash', 'txId', 'hash', 'transactionHash'], convert: text },
  { column: 'chainId', names: ['chain', 'chainId', 'blockchainId', 'blockchain'], convert: text },
  { column: 'blockTimestamp', names: ['blockTimestamp', 'timestamp'], convert: unixSeconds },
  { column: 'txType', names: ['txType', 'transactionType'], convert: text },
  { column: 'addresses', names: ['addresses', 'address'], convert: text },
  { column: 'amount', names: ['amount'], convert: decimal },
  { column: 'assetId', names: ['assetId'], convert: text },
];

export function rulesOf(operationType: string): readonly ColumnRule[] {
  return operationType === 'TRANSACTION_EXPORT_EVM' ? evmRules : primaryNetworkRules;
}

/** The longest key cell accepted: far above any hash or chain id, below PostgreSQL's index row limit. */
const MAX_KEY_LENGTH = 512;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A short, single-line excerpt of upstream text for an error message: control characters shown as `\uXXXX`. */
export function excerpt(value: string, max = 80): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return cut.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface Placed {
  slot: number;
  index: number;
  header: string;
  convert: Convert;
  key: boolean;
}

export interface HeaderPlan {
  /** Header cells placed in a column: their position, the column's slot in the row. */
  placed: Placed[];
  /** Header cells kept in `extra`, under their own name. */
  extra: { index: number; name: string }[];
}

/**
 * Places each header cell: a rule's names are tried in order against the cells not yet placed,
 * so when a file has both `chainId` and `chain`, the rule's first name wins and the other cell
 * goes to `extra`. Throws UnsupportedExportFileError, naming what was looked for and quoting the
 * header, when the key columns are not all there.
 */
export function planHeader(header: readonly string[], operationType: string): HeaderPlan {
  const normalized = header.map(normalizeHeaderName);
  const used = new Set<number>();
  const placed: Placed[] = [];
  const missing: string[] = [];
  for (const rule of rulesOf(operationType)) {
    let index = -1;
    for (const name of rule.names) {
      const want = normalizeHeaderName(name);
      index = normalized.findIndex((n, i) => n === want && !used.has(i));
      if (index !== -1) break;
    }
    const key = (KEY_COLUMNS as readonly string[]).includes(rule.column);
    if (index === -1) {
      if (key) missing.push(`${rule.column} (as ${rule.names.join(', ')})`);
      continue;
    }
    used.add(index);
    placed.push({
      slot: exportedColumns.indexOf(rule.column),
      index,
      header: header[index] as string,
      convert: rule.convert,
      key,
    });
  }
  if (missing.length > 0) {
    throw new UnsupportedExportFileError(
      `its header has no ${missing.join(' nor ')} column, the key of a ${operationType} file (header: "${excerpt(header.join(','), 300)}")`,
    );
  }
  // Placed headers are taken too: a misfit value is kept in extra under its column's header.
  const names = new Set<string>(placed.map((p) => p.header));
  const extra: HeaderPlan['extra'] = [];
  header.forEach((raw, index) => {
    if (used.has(index)) return;
    let name = raw === '' ? `column${index + 1}` : raw;
    if (names.has(name)) name = `${name}#${index + 1}`;
    names.add(name);
    extra.push({ index, name });
  });
  return { placed, extra };
}

/**
 * The row builder of a planned header: exportedColumns' order, NULL for the columns the file
 * lacks; an empty cell is NULL; a value that does not fit its column (a word in a number column)
 * is NULL there and kept, as sent, in `extra` under its header name. A row without its key, or
 * with a key past 512 characters, is a broken file.
 */
export function rowBuilder(
  plan: HeaderPlan,
  fixed: { exportName: string; operationId: string },
): (record: readonly string[], line: number) => unknown[] {
  const width = exportedColumns.length;
  const exportSlot = exportedColumns.indexOf('exportName');
  const operationSlot = exportedColumns.indexOf('operationId');
  const extraSlot = exportedColumns.indexOf('extra');
  return (record, line) => {
    const row = new Array<unknown>(width).fill(null);
    row[exportSlot] = fixed.exportName;
    row[operationSlot] = fixed.operationId;
    let extra: Record<string, string> | undefined;
    const keep = (name: string, raw: string) => {
      extra ??= {};
      extra[name] = raw;
    };
    for (const p of plan.placed) {
      const raw = record[p.index] ?? '';
      if (p.key && (raw === '' || raw.length > MAX_KEY_LENGTH)) {
        throw new ExportFileError(
          `line ${line}, column "${excerpt(p.header)}": ${
            raw === '' ? 'empty' : `${raw.length} characters long`
          }, but it is part of the row's key`,
        );
      }
      if (raw === '') continue;
      const value = p.convert(raw);
      if (value === undefined) keep(p.header, raw);
      else row[p.slot] = value;
    }
    for (const e of plan.extra) {
      const raw = record[e.index];
      if (raw) keep(e.name, raw);
    }
    if (extra) row[extraSlot] = JSON.stringify(extra);
    return row;
  };
}
