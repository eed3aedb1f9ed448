/**
 * How an export CSV's header maps to exported_transactions. The file format is not documented
 * publicly, so it is read tolerantly: a header cell matches a column by name, ignoring case and
 * punctuation (`TxHash`, `tx_hash`, `txHash` are one name), under the simulator's name or an alias
 * taken from the API's own resources (NativeTransaction's `from.address`, `method.callType`; the
 * Primary Network's `blockchainId`...). Only the natural key is required; every other column is
 * optional (NULL when absent), and cells the collector cannot place are kept per row in `extra`.
 */
import { type ExportedColumn, exportedColumns } from '../store/index.js';
import {
  BOUND,
  MAX_AMOUNT_DIGITS,
  MAX_UNIX_SECONDS,
  MIN_UNIX_SECONDS,
  type RejectedRecord,
} from '../upstream/index.js';

/** The file is not an export CSV the collector can read (cut short, a row of the wrong width, invalid bytes). */
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

/** A cell whose value converts but falls outside its column's domain bound: the row is set aside. */
class OutOfBounds {
  constructor(readonly rule: string) {}
}

/**
 * How a cell becomes a column value; `undefined`: it does not fit the column's type (the raw text
 * goes to `extra`, the column is NULL); OutOfBounds: it fits but is outside the column's bound.
 */
type Convert = (value: string) => string | number | undefined | OutOfBounds;

const DIGITS = /^\d+$/;
const HEX = /^0x[0-9a-f]+$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

const text: Convert = (v) => v;

/**
 * Exact decimal text, never a float (wei passes 2^53); hex (`0x…`) is turned into decimal. At most
 * 78 digits (a uint256); longer digits are out of bounds, and over 100 characters no amount at all.
 */
const decimal: Convert = (v) => {
  if (v.length > 100) return undefined;
  let digits: string | undefined;
  if (DIGITS.test(v)) digits = v.length > 1 && v.startsWith('0') ? v.replace(/^0+(?=\d)/, '') : v;
  else if (HEX.test(v) && v.length <= 66) digits = BigInt(v).toString();
  if (digits === undefined) return undefined;
  return digits.length > MAX_AMOUNT_DIGITS
    ? new OutOfBounds(`expected at most ${MAX_AMOUNT_DIGITS} digits (a uint256)`)
    : digits;
};

/** A whole number that fits a double exactly (positions), non-negative by its digits. */
const integer: Convert = (v) => {
  if (DIGITS.test(v) && v.length <= 15) return Number(v);
  if (HEX.test(v) && v.length <= 14) return Number.parseInt(v.slice(2), 16);
  return undefined;
};

/** Unix seconds, or an ISO-8601 time turned into Unix seconds; 2009..2100 (src/upstream/fields.ts). */
const unixSeconds: Convert = (v) => {
  let n = integer(v);
  if (n === undefined && ISO_TIME.test(v)) {
    const ms = Date.parse(v);
    n = Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  }
  if (n === undefined || n instanceof OutOfBounds || typeof n === 'string') return n;
  return n < MIN_UNIX_SECONDS || n >= MAX_UNIX_SECONDS
    ? new OutOfBounds('expected Unix seconds from 2009-01-01 to 2100-01-01')
    : n;
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

/**
 * Limits on the columns a header may hold that the collector cannot place: past them the file is
 * `unsupported` (kept, recorded, not loaded: a header of thousands of long unknown names would make
 * every row's `extra` repeat them, megabytes a row).
 */
export const HEADER_LIMITS = { unknownColumns: 256, nameLength: 128 } as const;
/** `extra` of one row at most, bytes of JSON (and at most 256 + 3 × the row's characters). */
export const MAX_EXTRA_BYTES = 4096;
/** The key `extra` carries, when it was cut, saying what was left out. */
export const EXTRA_CUT_KEY = '(cut)';

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
  /** The header cell's name, as `extra` and the record's raw text name it (unique). */
  header: string;
  convert: Convert;
  key: boolean;
}

export interface HeaderPlan {
  /** Header cells placed in a column: their position, the column's slot in the row. */
  placed: Placed[];
  /** Header cells kept in `extra`, under their own name. */
  extra: { index: number; name: string }[];
  /** Every header cell's name, unique: blank ones `column<n>`, repeated ones `<name>#<n>`. */
  names: string[];
}

/**
 * Each header cell's name, unique: a blank cell is `column<n>`, a repeated name `<name>#<n>` (its
 * position), and a name so made that the header already holds gets `.2`, `.3`…: no cell ever lands
 * on another's name (the row's raw text and `extra` are keyed by them).
 */
export function uniqueNames(header: readonly string[]): string[] {
  const literal = new Set(header);
  const used = new Set<string>();
  return header.map((raw, i) => {
    let name = raw === '' ? `column${i + 1}` : raw;
    if (used.has(name) || (raw === '' && literal.has(name))) {
      const base = `${name}#${i + 1}`;
      name = base;
      for (let n = 2; used.has(name) || literal.has(name); n++) name = `${base}.${n}`;
    }
    used.add(name);
    return name;
  });
}

/**
 * Places each header cell: a rule's names are tried in order against the cells not yet placed,
 * so when a file has both `chainId` and `chain`, the rule's first name wins and the other cell
 * goes to `extra`. Throws UnsupportedExportFileError, naming what was looked for and quoting the
 * header, when the key columns are not all there, or when the cells it cannot place pass
 * HEADER_LIMITS.
 */
export function planHeader(header: readonly string[], operationType: string): HeaderPlan {
  const normalized = header.map(normalizeHeaderName);
  const names = uniqueNames(header);
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
      header: names[index] as string,
      convert: rule.convert,
      key,
    });
  }
  if (missing.length > 0) {
    throw new UnsupportedExportFileError(
      `its header has no ${missing.join(' nor ')} column, the key of a ${operationType} file (header: "${excerpt(header.join(','), 300)}")`,
    );
  }
  const extra = names.flatMap((name, index) => (used.has(index) ? [] : [{ index, name }]));
  if (extra.length > HEADER_LIMITS.unknownColumns) {
    throw new UnsupportedExportFileError(
      `its header has ${extra.length} columns the collector cannot place, more than ${HEADER_LIMITS.unknownColumns} (each row would keep them all in extra): "${excerpt(extra.map((e) => e.name).join(','), 200)}"`,
    );
  }
  const long = extra.find((e) => e.name.length > HEADER_LIMITS.nameLength);
  if (long) {
    throw new UnsupportedExportFileError(
      `its header has a column name of ${long.name.length} characters, more than ${HEADER_LIMITS.nameLength}: "${excerpt(long.name, 100)}"`,
    );
  }
  return { placed, extra, names };
}

/** What one row of a file gives: its row for exported_transactions, or why it is set aside. */
export type BuiltRow = { row: unknown[]; bytes: number } | { rejected: RejectedRecord };

/**
 * The row builder of a planned header: exportedColumns' order, NULL for the columns the file
 * lacks; an empty cell is NULL; a value that does not fit its column (a word in a number column)
 * is NULL there and kept, as sent, in `extra` under its header name; `extra` is at most 4 KiB. A
 * row without its key (or a key past 512 characters), or with a value outside its bound (a block
 * time before 2009 or after 2100, an amount past 78 digits), is set aside: its cells, by header
 * name, are the record (`rejected`). `bytes`: about what the row holds, for the loader's batches.
 */
export function rowBuilder(
  plan: HeaderPlan,
  fixed: { exportName: string; operationId: string },
): (record: readonly string[], line: number) => BuiltRow {
  const width = exportedColumns.length;
  const exportSlot = exportedColumns.indexOf('exportName');
  const operationSlot = exportedColumns.indexOf('operationId');
  const extraSlot = exportedColumns.indexOf('extra');
  const chainSlot = exportedColumns.indexOf('chainId');
  const hashSlot = exportedColumns.indexOf('txHash');
  return (record, line) => {
    const row = new Array<unknown>(width).fill(null);
    row[exportSlot] = fixed.exportName;
    row[operationSlot] = fixed.operationId;
    let bytes = 64;
    const extra: [string, string][] = [];
    const problems: { field: string; rule: string; bound: boolean }[] = [];
    for (const p of plan.placed) {
      const raw = record[p.index] ?? '';
      bytes += raw.length;
      if (p.key && (raw === '' || raw.length > MAX_KEY_LENGTH)) {
        problems.push({
          field: p.header,
          rule:
            raw === ''
              ? "empty, but it is part of the row's key"
              : `${raw.length} characters long, but it is part of the row's key (at most ${MAX_KEY_LENGTH})`,
          bound: false,
        });
        continue;
      }
      if (raw === '') continue;
      const value = p.convert(raw);
      if (value instanceof OutOfBounds)
        problems.push({ field: p.header, rule: `${BOUND} ${value.rule}`, bound: true });
      else if (value === undefined) extra.push([p.header, raw]);
      else row[p.slot] = value;
    }
    if (problems.length > 0)
      return { rejected: rejectedRow(plan, fixed, record, line, row[chainSlot], row[hashSlot], problems) };
    for (const e of plan.extra) {
      const raw = record[e.index];
      if (raw) extra.push([e.name, raw]);
    }
    if (extra.length > 0) {
      // At most 4 KiB, and no more than about three times what the row itself holds: a header of
      // long unknown names over short cells cannot make the database many times the file.
      let rowChars = record.length;
      for (const cell of record) rowChars += cell.length;
      const json = extraJson(extra, Math.min(MAX_EXTRA_BYTES, 256 + 3 * rowChars));
      row[extraSlot] = json;
      bytes += json.length;
    }
    return { row, bytes };
  };
}

/** JSON bytes of a string. */
const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text), 'utf8');

/**
 * `extra` as JSON, at most `maxBytes`: the cells in header order while they fit, the first that does
 * not cut to what is left (ending in "…"), the rest left out and counted under `(cut)`.
 */
function extraJson(cells: readonly [string, string][], maxBytes: number): string {
  // A null-prototype object: a column named `__proto__` is a key like any other.
  const out: Record<string, string> = Object.create(null);
  // Room is kept for the `(cut)` note (under 160 bytes).
  const budget = maxBytes - 160;
  let size = 2;
  let left = 0;
  let leftChars = 0;
  for (const [name, raw] of cells) {
    if (left > 0) {
      left++;
      leftChars += raw.length;
      continue;
    }
    const key = jsonBytes(name) + 2;
    const entry = key + jsonBytes(raw);
    if (size + entry <= budget) {
      out[name] = raw;
      size += entry;
      continue;
    }
    const room = budget - size - key;
    if (room >= 64) {
      let cut = raw.slice(0, room);
      while (jsonBytes(`${cut}…`) > room) cut = cut.slice(0, Math.floor(cut.length * 0.9));
      out[name] = `${cut}…`;
      size += key + jsonBytes(out[name]);
    }
    left++;
    leftChars += raw.length;
  }
  if (left > 0) {
    out[EXTRA_CUT_KEY] =
      `${left} cell(s), ${leftChars} characters, not kept whole (extra is at most ${MAX_EXTRA_BYTES} bytes a row)`;
  }
  return JSON.stringify(out);
}

/** A row set aside: its cells by header name (a null-prototype object), what failed, its key if readable. */
function rejectedRow(
  plan: HeaderPlan,
  fixed: { exportName: string },
  record: readonly string[],
  line: number,
  chainId: unknown,
  txHash: unknown,
  problems: readonly { field: string; rule: string; bound: boolean }[],
): RejectedRecord {
  const raw: Record<string, string> = Object.create(null);
  plan.names.forEach((name, i) => {
    raw[name] = record[i] ?? '';
  });
  const readable = typeof chainId === 'string' && typeof txHash === 'string';
  return {
    raw,
    reason: problems.every((p) => p.bound) ? 'bounds' : 'schema',
    fields: problems.map((p) => p.field).slice(0, 10),
    problems: `line ${line}: ${problems.map((p) => `${excerpt(p.field)}: ${p.rule}`).join('; ')}`.slice(
      0,
      600,
    ),
    key: readable ? `${fixed.exportName}:${chainId}:${txHash}` : undefined,
  };
}
