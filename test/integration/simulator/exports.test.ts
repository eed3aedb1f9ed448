import { afterEach, describe, expect, it } from 'vitest';
import type { OperationStatusResponse } from '../../../src/simulator/index.js';
import { expectValidComponent } from '../../support/openapi.js';
import { api, closeSimulators, expectError, parseCsv, startTestSimulator, T0 } from './helpers.js';

afterEach(closeSimulators);

const ADDRESS_A = '0x71c7656ec7ab88b098defb751b7401b5f6d8976f';
const ADDRESS_B = '0x2a3f5c9e8d4b1a7f6e5d4c3b2a1f0e9d8c7b6a59';

function evmExport(
  firstDate: string,
  lastDate: string,
  addresses = [ADDRESS_A, ADDRESS_B],
  chains = ['43114', '53935'],
) {
  return {
    type: 'TRANSACTION_EXPORT_EVM',
    firstDate,
    lastDate,
    options: { addresses, includeChains: chains },
  };
}

type Sim = Awaited<ReturnType<typeof startTestSimulator>>['sim'];

async function create(sim: Sim, body: unknown, apiKey?: string): Promise<OperationStatusResponse> {
  const res = await api<OperationStatusResponse>(sim, '/v1/operations/transactions:export', {
    method: 'POST',
    body: JSON.stringify(body),
    ...(apiKey ? { apiKey } : {}),
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function poll(sim: Sim, id: string): Promise<OperationStatusResponse> {
  const res = await api<OperationStatusResponse>(sim, `/v1/operations/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('simulator exports', () => {
  it('stays RUNNING for the configured time, advancing updatedAtTimestamp, then COMPLETES with a downloadUrl', async () => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 3_000 } });
    const created = await create(sim, evmExport('2025-05-01', '2025-05-03'));
    expect(created).toMatchObject({
      operationType: 'TRANSACTION_EXPORT_EVM',
      operationStatus: 'RUNNING',
      createdAtTimestamp: T0,
      updatedAtTimestamp: T0,
    });
    expect(created.operationId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    clock.advance(1_500);
    const running = await poll(sim, created.operationId);
    expect(running.operationStatus).toBe('RUNNING');
    expect(running.updatedAtTimestamp).toBe(T0 + 1_000);
    expect(running.metadata?.downloadUrl).toBeUndefined();
    clock.advance(1_500);
    const done = await poll(sim, created.operationId);
    expect(done.operationStatus).toBe('COMPLETED');
    expect(done.createdAtTimestamp).toBe(T0);
    expect(done.updatedAtTimestamp).toBe(T0 + 3_000);
    expect(done.metadata?.downloadUrl).toMatch(
      new RegExp(`^${sim.url}/downloads/${done.operationId}/[\\w-]{20,}\\.csv$`),
    );
    expect(done.metadata?.code).toBeUndefined();
    expect(sim.truth.operation(done.operationId)).toEqual(done);
    expect(sim.served.operations.map((o) => o.operationStatus)).toEqual(['RUNNING', 'RUNNING', 'COMPLETED']);
  });

  it('truncates a range over maxRangeDays with WarnTruncatedExport and the nextDate to continue from', async () => {
    const { sim, clock } = await startTestSimulator({
      exports: { runningMs: 0, maxRangeDays: 10, rowsPerDay: 3 },
    });
    const created = await create(sim, evmExport('2025-03-01', '2025-03-31'));
    clock.advance(1);
    const done = await poll(sim, created.operationId);
    expect(done.operationStatus).toBe('COMPLETED_WITH_WARNING');
    expect(done.metadata).toMatchObject({ code: 'WarnTruncatedExport', nextDate: '2025-03-11' });
    const file = await fetch(done.metadata?.downloadUrl ?? '');
    const rows = parseCsv(await file.text());
    expect(rows).toHaveLength(1 + 10 * 3);
    const times = rows.slice(1).map((r) => Number(r[2]));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(Date.UTC(2025, 2, 1) / 1000);
    expect(Math.max(...times)).toBeLessThan(Date.UTC(2025, 2, 11) / 1000);
  });

  it.each([
    ['an impossible date', { firstDate: '2025-02-30' }],
    ['a date in another format', { lastDate: '05/01/2025' }],
    ['firstDate after lastDate', { firstDate: '2025-05-10', lastDate: '2025-05-01' }],
  ])('FAILS with ErrInvalidRequest for %s', async (_what, dates) => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 1_000 } });
    const created = await create(sim, { ...evmExport('2025-05-01', '2025-05-02'), ...dates });
    expect(created.operationStatus).toBe('RUNNING');
    clock.advance(1_000);
    const failed = await poll(sim, created.operationId);
    expect(failed.operationStatus).toBe('FAILED');
    expect(failed.metadata).toEqual({ code: 'ErrInvalidRequest' });
    expect(failed.message).toMatch(/firstDate|lastDate/);
    expect(failed.updatedAtTimestamp).toBe(T0 + 1_000);
  });

  it('FAILS with ErrInternal when an address carries the simfail marker', async () => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 10 } });
    const created = await create(sim, evmExport('2025-05-01', '2025-05-01', ['0xsimfail']));
    clock.advance(10);
    const failed = await poll(sim, created.operationId);
    expect(failed).toMatchObject({ operationStatus: 'FAILED', metadata: { code: 'ErrInternal' } });
    expect(failed.metadata?.downloadUrl).toBeUndefined();
  });

  it('accepts the deprecated startDate and endDate', async () => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 0, rowsPerDay: 2 } });
    const body = {
      type: 'TRANSACTION_EXPORT_EVM',
      startDate: '2025-01-01',
      endDate: '2025-01-04',
      options: { addresses: [ADDRESS_A], includeChains: ['43114'] },
    };
    const created = await create(sim, body);
    clock.advance(1);
    const done = await poll(sim, created.operationId);
    expect(done.operationStatus).toBe('COMPLETED');
    expect([...(sim.truth.exportRows(done.operationId) ?? [])]).toHaveLength(8);
  });

  it('exports the primary network types with their own CSV columns', async () => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 0, rowsPerDay: 4 } });
    for (const type of [
      'TRANSACTION_EXPORT_PRIMARY_NETWORK',
      'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING',
      'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE',
    ]) {
      const created = await create(sim, {
        type,
        firstDate: '2025-04-01',
        lastDate: '2025-04-02',
        options: {
          includeChains: ['p-chain', 'x-chain'],
          addresses: ['P-avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg'],
        },
      });
      expect(created.operationType).toBe(type);
      clock.advance(1);
      const done = await poll(sim, created.operationId);
      expect(done.operationStatus).toBe('COMPLETED');
      const rows = parseCsv(await (await fetch(done.metadata?.downloadUrl ?? '')).text());
      expect(rows[0]).toEqual([
        'txHash',
        'chain',
        'txType',
        'blockTimestamp',
        'addresses',
        'amount',
        'assetId',
      ]);
      expect(rows).toHaveLength(1 + 2 * 4);
      for (const row of rows.slice(1)) {
        expect(['p-chain', 'x-chain']).toContain(row[1]);
        expect(row[4]).toBe('avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg');
        expect(row[0]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{45,52}$/);
      }
    }
  });

  it('streams the CSV without an API key, rows matching the transactions the API would list', async () => {
    const KEY = 'sk-exports';
    const { sim, clock } = await startTestSimulator({
      apiKeys: { [KEY]: {} },
      requireApiKey: true,
      exports: { runningMs: 0, rowsPerDay: 24 },
    });
    const created = await create(sim, evmExport('2025-05-01', '2025-05-02'), KEY);
    clock.advance(1);
    const done = (await api(sim, `/v1/operations/${created.operationId}`, { apiKey: KEY }))
      .body as OperationStatusResponse;
    const res = await fetch(done.metadata?.downloadUrl ?? '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const text = await res.text();
    const [header, ...rows] = parseCsv(text);
    expect(header?.slice(0, 3)).toEqual(['txHash', 'blockNumber', 'blockTimestamp']);
    expect(rows).toHaveLength(48);
    const truth = [...(sim.truth.exportRows(done.operationId) ?? [])];
    expect(rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])))).toEqual(truth);
    for (const row of truth) {
      expect(
        [ADDRESS_A, ADDRESS_B].includes(row.from ?? '') || [ADDRESS_A, ADDRESS_B].includes(row.to ?? ''),
      ).toBe(true);
      expect(['43114', '53935']).toContain(row.chainId);
      const ts = Number(row.blockTimestamp);
      expect(ts).toBeGreaterThanOrEqual(Date.UTC(2025, 4, 1) / 1000);
      expect(ts).toBeLessThan(Date.UTC(2025, 4, 3) / 1000);
      // Each row is a transaction as the list endpoint would serve it.
      const tx = {
        blockNumber: row.blockNumber,
        blockTimestamp: ts,
        blockHash: row.blockHash,
        chainId: row.chainId,
        blockIndex: Number(row.blockIndex),
        txHash: row.txHash,
        txStatus: row.txStatus,
        txType: Number(row.txType),
        gasLimit: row.gasLimit,
        gasUsed: row.gasUsed,
        gasPrice: row.gasPrice,
        nonce: row.nonce,
        from: { address: row.from },
        to: { address: row.to },
        value: row.value,
        ...(row.callType
          ? { method: { callType: row.callType, methodHash: row.methodHash, methodName: row.methodName } }
          : {}),
      };
      expectValidComponent('NativeTransaction', tx);
      expect(row.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    expect(sim.served.downloads).toEqual([{ operationId: done.operationId, bytes: Buffer.byteLength(text) }]);
    const log = sim.requests.find((r) => r.endpoint === 'download');
    expect(log).toMatchObject({ status: 200, hadApiKey: false });
  });

  it('exports the same rows for the same request, whatever the operation', async () => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 0, rowsPerDay: 5 } });
    const a = await create(sim, evmExport('2025-05-01', '2025-05-01'));
    const b = await create(sim, evmExport('2025-05-01', '2025-05-01'));
    clock.advance(1);
    expect([...(sim.truth.exportRows(a.operationId) ?? [])]).toEqual([
      ...(sim.truth.exportRows(b.operationId) ?? []),
    ]);
  });

  it('answers 404 for a download that is not ready, not known, or of a failed export', async () => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 1_000 } });
    const created = await create(sim, evmExport('2025-05-01', '2025-05-01'));
    clock.advance(1_000);
    const url = (await poll(sim, created.operationId)).metadata?.downloadUrl ?? '';
    const path = url.slice(sim.url.length);
    clock.set(T0 + 10);
    expectError(await api(sim, path), 404, 'Export file not found');
    clock.set(T0 + 1_000);
    expect((await fetch(url)).status).toBe(200);
    expectError(await api(sim, path.replace(/\/[^/]+\.csv$/, '/guess.csv')), 404);
    expectError(await api(sim, `/downloads/${created.operationId}`), 404);
  });

  it('streams a large export without holding it, and survives a client that stops reading', async () => {
    const { sim, clock } = await startTestSimulator({ exports: { runningMs: 0, rowsPerDay: 20_000 } });
    const created = await create(sim, evmExport('2025-05-01', '2025-05-02'));
    clock.advance(1);
    const url = (await poll(sim, created.operationId)).metadata?.downloadUrl ?? '';
    const aborted = new AbortController();
    const partial = await fetch(url, { signal: aborted.signal });
    const reader = partial.body?.getReader();
    await reader?.read();
    aborted.abort();
    await reader?.cancel().catch(() => undefined);

    const full = await fetch(url);
    let lines = 0;
    let bytes = 0;
    const decoder = new TextDecoder();
    for await (const chunk of full.body ?? []) {
      bytes += chunk.byteLength;
      lines += (decoder.decode(chunk, { stream: true }).match(/\n/g) ?? []).length;
    }
    expect(lines).toBe(1 + 40_000);
    expect(bytes).toBeGreaterThan(40_000 * 200);
    expect((await api(sim, '/v1/avax/supply')).status).toBe(200);
  });
});
