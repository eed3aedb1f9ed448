import { afterEach, describe, expect, it } from 'vitest';
import { simulatorOptionsFromFlags, startSimulator } from '../../../src/simulator/index.js';
import { api, closeSimulators, startTestSimulator } from './helpers.js';

afterEach(closeSimulators);

const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

describe('simulator lifecycle', () => {
  it('starts on an ephemeral port and reports its URL without a trailing slash', async () => {
    const { sim } = await startTestSimulator();
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await api(sim, '/v1/avax/supply')).status).toBe(200);
  });

  it('closes the server, its keep-alive connections and pending delayed answers', async () => {
    const before = servers();
    const sim = await startSimulator({
      port: 0,
      faults: { endpoints: { supply: { plan: [{ kind: 'ok' }, { latencyMs: 60_000 }] } } },
    });
    expect(servers()).toBe(before + 1);
    expect((await fetch(`${sim.url}/v1/avax/supply`)).status).toBe(200); // leaves a keep-alive socket
    const pending = fetch(`${sim.url}/v1/avax/supply`).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sim.close();
    expect(await pending).toBe('failed');
    expect(servers()).toBe(before);
    await expect(fetch(`${sim.url}/v1/avax/supply`)).rejects.toThrow();
    await sim.close(); // closing twice is harmless
  });

  it('refuses to start on a port in use', async () => {
    const { sim } = await startTestSimulator();
    const port = Number(new URL(sim.url).port);
    await expect(startSimulator({ port })).rejects.toThrow(/EADDRINUSE/);
  });

  it('refuses nonsense options', async () => {
    await expect(startSimulator({ port: 0, txPerMinute: 0 })).rejects.toThrow(/txPerMinute/);
    await expect(startSimulator({ port: 0, exports: { maxRangeDays: -1 } })).rejects.toThrow(/maxRangeDays/);
  });

  it('uses publicUrl as the base of download URLs', async () => {
    const { sim, clock } = await startTestSimulator({
      publicUrl: 'https://sim.example.test/',
      exports: { runningMs: 0 },
    });
    const created = await api(sim, '/v1/operations/transactions:export', {
      method: 'POST',
      body: JSON.stringify({
        type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE',
        options: { includeChains: ['x-chain'] },
      }),
    });
    clock.advance(1);
    const op = await api(sim, `/v1/operations/${created.body.operationId}`);
    expect(op.body.metadata.downloadUrl).toMatch(/^https:\/\/sim\.example\.test\/downloads\//);
  });

  it('builds options from CLI flags and names the bad flag', async () => {
    expect(await simulatorOptionsFromFlags({ port: '4010', seed: '7' })).toEqual({
      port: 4010,
      seed: 7,
      logLimit: 0,
    });
    await expect(simulatorOptionsFromFlags({ port: 'http' })).rejects.toThrow(/--port/);
    await expect(simulatorOptionsFromFlags({ seed: '-3' })).rejects.toThrow(/--seed/);
  });
});
