import { describe, expect, it } from 'vitest';
import {
  type BuiltRow,
  EXTRA_CUT_KEY,
  excerpt,
  HEADER_LIMITS,
  MAX_EXTRA_BYTES,
  normalizeHeaderName,
  planHeader,
  rowBuilder,
  UnsupportedExportFileError,
  uniqueNames,
} from '../../src/exports/csv-columns.js';
import { exportedColumns } from '../../src/store/index.js';

const EVM = 'TRANSACTION_EXPORT_EVM';
const PN = 'TRANSACTION_EXPORT_PRIMARY_NETWORK';

const build = (header: string[], record: string[], type = EVM): BuiltRow =>
  rowBuilder(planHeader(header, type), { exportName: 'e', operationId: 'op' })(record, 2);

/** The row a header and a record give, as { column: value } without the NULLs. */
function load(header: string[], record: string[], type = EVM): Record<string, unknown> {
  const built = build(header, record, type);
  if ('rejected' in built) throw new Error(`set aside: ${built.rejected.problems}`);
  const { row } = built;
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
    ['blockTimestamp', '-1000000000000000'],
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

  it('renames without collisions: a made-up name the header already holds gets a suffix', () => {
    expect(uniqueNames(['note', 'note', 'note#2', '', 'column4'])).toEqual([
      'note',
      'note#2.2',
      'note#2',
      'column4#4',
      'column4',
    ]);
    const row = load(['txHash', 'chainId', 'x', 'x', 'x#4'], ['0x1', '43114', 'a', 'b', 'c']);
    expect(JSON.parse(row['extra'] as string)).toEqual({ x: 'a', 'x#4.2': 'b', 'x#4': 'c' });
  });

  it('keeps a column named __proto__ like any other (no prototype in the way)', () => {
    const row = load(['txHash', 'chainId', '__proto__', 'constructor'], ['0x1', '43114', 'p', 'c']);
    const extra = JSON.parse(row['extra'] as string) as Record<string, unknown>;
    expect(Object.keys(extra)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(extra, '__proto__')?.value).toBe('p');
  });

  it('bounds extra at 4 KiB a row: the cell that does not fit is cut, the rest counted', () => {
    const header = ['txHash', 'chainId', ...Array.from({ length: 100 }, (_, i) => `col${i}`)];
    const record = [
      '0x1',
      '43114',
      'a'.repeat(1000),
      'v'.repeat(5000),
      ...Array.from({ length: 98 }, () => 'x'.repeat(100)),
    ];
    const extra = load(header, record)['extra'] as string;
    expect(Buffer.byteLength(extra)).toBeLessThanOrEqual(MAX_EXTRA_BYTES);
    const parsed = JSON.parse(extra) as Record<string, string>;
    expect(parsed['col0']).toBe('a'.repeat(1000));
    expect(parsed['col1']).toMatch(/^v{2000,}…$/);
    expect(parsed['col2']).toBeUndefined();
    expect(parsed[EXTRA_CUT_KEY]).toBe(
      '99 cell(s), 14800 characters, not kept whole (extra is at most 4096 bytes a row)',
    );
  });

  it.each([
    [
      Array.from({ length: HEADER_LIMITS.unknownColumns + 1 }, (_, i) => `u${i}`),
      /257 columns the collector cannot place, more than 256/,
    ],
    [['a'.repeat(HEADER_LIMITS.nameLength + 1)], /a column name of 129 characters, more than 128/],
  ])('a header with too many or too long unknown names (%#) is unsupported', (unknown, message) => {
    const run = () => planHeader(['txHash', 'chainId', ...unknown], EVM);
    expect(run).toThrow(UnsupportedExportFileError);
    expect(run).toThrow(message);
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
    ['', /line 2: txHash: empty, but it is part of the row's key/],
    ['x'.repeat(513), /line 2: txHash: 513 characters long, but it is part of the row's key/],
  ])('a row without a usable key (%#) is set aside, its cells by header name', (hash, message) => {
    const built = build(['txHash', 'chainId', 'note'], [hash, '43114', 'n']);
    expect('rejected' in built && built.rejected).toMatchObject({
      reason: 'schema',
      fields: ['txHash'],
      problems: expect.stringMatching(message),
      key: undefined,
      raw: { txHash: hash, chainId: '43114', note: 'n' },
    });
  });

  it.each([
    [
      'blockTimestamp',
      '99999999999',
      /blockTimestamp: out of bounds: expected Unix seconds from 2009-01-01 to 2100-01-01/,
    ],
    ['blockTimestamp', '1000', /blockTimestamp: out of bounds/],
    ['value', '9'.repeat(79), /value: out of bounds: expected at most 78 digits/],
  ])('a row whose %s %j is out of bounds is set aside, keyed', (header, cell, message) => {
    const built = build(['txHash', 'chainId', header], ['0x1', '43114', cell]);
    expect('rejected' in built && built.rejected).toMatchObject({
      reason: 'bounds',
      fields: [header],
      problems: expect.stringMatching(message),
      key: 'e:43114:0x1',
    });
  });
});

describe('excerpt', () => {
  it('cuts and shows control characters', () => {
    expect(excerpt('a\u0000b\u0007\u009b', 80)).toBe('a\\u0000b\\u0007\\u009b');
    expect(excerpt('abcdef', 3)).toBe('abc…');
  });
});
