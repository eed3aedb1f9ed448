import { describe, expect, it } from 'vitest';
import {
  ExportFileError,
  excerpt,
  normalizeHeaderName,
  planHeader,
  rowBuilder,
  UnsupportedExportFileError,
} from '../../src/exports/csv-columns.js';
import { exportedColumns } from '../../src/store/index.js';

const EVM = 'TRANSACTION_EXPORT_EVM';
const PN = 'TRANSACTION_EXPORT_PRIMARY_NETWORK';

/** The row a header and a record give, as { column: value } without the NULLs. */
function load(header: string[], record: string[], type = EVM): Record<string, unknown> {
  const row = rowBuilder(planHeader(header, type), { exportName: 'e', operationId: 'op' })(record, 2);
  return Object.fromEntries(
    exportedColumns.flatMap((c, i) => (row[i] === null ? [] : [[c, row[i]] as const])),
  );
}

describe('normalizeHeaderName', () => {
  it.each([
    ['TxHash', 'txhash'],
    ['tx_hash', 'txhash'],
    ['txHash', 'txhash'],
    ['Tx Hash', 'txhash'],
    ['tx-hash', 'txhash'],
    ['from.address', 'fromaddress'],
    ['ＴｘＨａｓｈ', 'txhash'],
    ['', ''],
  ])('%j → %j', (raw, want) => expect(normalizeHeaderName(raw)).toBe(want));
});

describe('planHeader and rowBuilder', () => {
  it('maps any spelling and order of the names, and the API aliases', () => {
    expect(
      load(
        ['VALUE', 'from.address', 'Chain', 'tx_hash', 'method.callType', 'block-timestamp'],
        ['10', '0xa', '43114', '0x1', 'CONTRACT_CALL', '1700000000'],
      ),
    ).toEqual({
      exportName: 'e',
      operationId: 'op',
      value: '10',
      fromAddress: '0xa',
      chainId: '43114',
      txHash: '0x1',
      methodCallType: 'CONTRACT_CALL',
      blockTimestamp: 1_700_000_000,
    });
  });

  it('prefers the first name of a column; the other cell goes to extra', () => {
    expect(load(['chain', 'txHash', 'chainId'], ['c-chain', '0x1', '43114'])).toMatchObject({
      chainId: '43114',
      extra: JSON.stringify({ chain: 'c-chain' }),
    });
  });

  it.each([
    ['value', '0x10', '16'],
    ['value', '007', '7'],
    ['value', '0', '0'],
    ['gasLimit', '0x5208', '21000'],
    ['blockIndex', '0x1f', 31],
    ['blockTimestamp', '2025-06-14T12:00:00Z', 1_749_902_400],
    ['blockTimestamp', '1749902400', 1_749_902_400],
  ])('%s %j is stored as %j', (header, cell, want) => {
    const column = header === 'gasLimit' ? 'gasLimit' : header;
    expect(load(['txHash', 'chainId', header], ['0x1', '43114', cell])[column]).toEqual(want);
  });

  it.each([
    ['value', '1.5'],
    ['value', '-3'],
    ['value', '9'.repeat(101)],
    ['blockIndex', '1234567890123456'],
    ['blockTimestamp', 'yesterday'],
  ])('keeps %s %j, which does not fit the column, in extra', (header, cell) => {
    const row = load(['txHash', 'chainId', header], ['0x1', '43114', cell]);
    expect(row[header]).toBeUndefined();
    expect(JSON.parse(row['extra'] as string)).toEqual({ [header]: cell });
  });

  it('keeps unknown columns under their name (blank: column<n>; repeated: <name>#<n>), empty cells left out', () => {
    const row = load(['txHash', 'chainId', 'note', '', 'note', 'empty'], ['0x1', '43114', 'a', 'b', 'c', '']);
    expect(JSON.parse(row['extra'] as string)).toEqual({ note: 'a', column4: 'b', 'note#5': 'c' });
    expect(load(['txHash', 'chainId'], ['0x1', '43114'])['extra']).toBeUndefined();
  });

  it('reads a Primary Network file by its own names and aliases', () => {
    expect(load(['TxID', 'blockchainId', 'amount', 'Address'], ['2x', 'p-chain', '5', 'avax1q'], PN)).toEqual(
      {
        exportName: 'e',
        operationId: 'op',
        txHash: '2x',
        chainId: 'p-chain',
        amount: '5',
        addresses: 'avax1q',
      },
    );
  });

  it.each([
    [['hash_of_tx', 'chainId'], EVM, /no txHash \(as txHash, hash, transactionHash\) column/],
    [['txHash', 'network'], EVM, /no chainId \(as chainId, chain, evmChainId, blockchainId\) column/],
    [
      ['id', 'when'],
      PN,
      /no txHash \(.*\) nor chainId \(as chain, chainId, blockchainId, blockchain\) column/,
    ],
    [[], EVM, /no txHash .* nor chainId/],
  ])('a header without the key (%j) is unsupported, quoting it', (header, type, message) => {
    const run = () => planHeader(header, type);
    expect(run).toThrow(UnsupportedExportFileError);
    expect(run).toThrow(message);
    expect(run).toThrow(`(header: "${header.join(',')}")`);
  });

  it('quotes a header with control characters made visible and bounded', () => {
    const header = ['\u001b[2Jx', 'y'.repeat(400)];
    expect(() => planHeader(header, EVM)).toThrow('(header: "\\u001b[2Jx,yyy');
    try {
      planHeader(header, EVM);
    } catch (err) {
      expect((err as Error).message.length).toBeLessThan(600);
    }
  });

  it.each([
    ['', /line 2, column "txHash": empty, but it is part of the row's key/],
    ['x'.repeat(513), /line 2, column "txHash": 513 characters long, but it is part of the row's key/],
  ])('a row without a usable key (%#) is a broken file', (hash, message) => {
    const run = () => load(['txHash', 'chainId'], [hash, '43114']);
    expect(run).toThrow(ExportFileError);
    expect(run).toThrow(message);
  });
});

describe('excerpt', () => {
  it('cuts and shows control characters', () => {
    expect(excerpt('a\u0000b\u0007\u009b', 80)).toBe('a\\u0000b\\u0007\\u009b');
    expect(excerpt('abcdef', 3)).toBe('abc…');
  });
});
