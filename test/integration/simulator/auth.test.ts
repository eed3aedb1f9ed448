import { afterEach, describe, expect, it } from 'vitest';
import { api, closeSimulators, expectError, startTestSimulator } from './helpers.js';

afterEach(closeSimulators);

const KEY = 'sk-test-3c1f6a';
const OTHER = 'sk-test-other';

describe('simulator API keys', () => {
  it('accepts requests without a key by default and sends no rate-limit headers to them', async () => {
    const { sim } = await startTestSimulator();
    const res = await api(sim, '/v1/transactions');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    expect(sim.requests[0]).toMatchObject({ endpoint: 'transactions', status: 200, hadApiKey: false });
  });

  it('accepts any key when none are configured, at the Free tier', async () => {
    const { sim } = await startTestSimulator();
    const res = await api(sim, '/v1/transactions', { apiKey: 'anything' });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('8000;w=60');
    expect(res.headers.get('ratelimit-limit')).toBe('8000');
    expect(res.headers.get('ratelimit-remaining')).toBe('7980');
  });

  it('answers 401 to an unknown key and to a missing one when keys are required', async () => {
    const { sim } = await startTestSimulator({ apiKeys: { [KEY]: {} }, requireApiKey: true });
    expectError(await api(sim, '/v1/avax/supply', { apiKey: 'wrong' }), 401, 'Invalid API key');
    expectError(await api(sim, '/v1/avax/supply'), 401, 'API key is required');
    expect((await api(sim, '/v1/avax/supply', { apiKey: KEY })).status).toBe(200);
  });

  it('puts the rate-limit headers on every answer to a keyed request, errors included', async () => {
    const { sim } = await startTestSimulator({ apiKeys: { [KEY]: { tier: 'Pro' } } });
    const ok = await api(
      sim,
      '/v1/networks/mainnet/rewards?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
      {
        apiKey: KEY,
      },
    );
    expect(ok.headers.get('ratelimit-policy')).toBe('20000;w=60');
    expect(ok.headers.get('ratelimit-remaining')).toBe('19900');
    const bad = await api(sim, '/v1/transactions?pageSize=0', { apiKey: KEY });
    expectError(bad, 400);
    expect(bad.headers.get('ratelimit-limit')).toBe('20000');
    const missing = await api(sim, '/v1/nothing', { apiKey: KEY });
    expectError(missing, 404);
    expect(missing.headers.get('ratelimit-remaining')).not.toBeNull();
    const unknown = await api(sim, '/v1/avax/supply', { apiKey: 'wrong' });
    expectError(unknown, 401);
    expect(unknown.headers.get('ratelimit-policy')).not.toBeNull();
  });

  it('answers 403 when the key has no access to the asked orgId', async () => {
    const { sim } = await startTestSimulator({
      apiKeys: { [KEY]: { orgIds: ['org-a', 'org-b'] }, [OTHER]: {} },
    });
    const own = await api(sim, '/v1/apiUsageMetrics?orgId=org-b', { apiKey: KEY });
    expect(own.status).toBe(200);
    expect(own.body.orgId).toBe('org-b');
    expect((await api(sim, '/v1/apiUsageMetrics', { apiKey: KEY })).body.orgId).toBe('org-a');
    expectError(await api(sim, '/v1/apiUsageMetrics?orgId=org-c', { apiKey: KEY }), 403, 'org-c');
    expectError(await api(sim, '/v1/apiUsageMetrics?orgId=org-a', { apiKey: OTHER }), 403);
    expectError(await api(sim, '/v1/apiUsageMetrics?orgId=org-a'), 403);
  });

  it('never echoes or logs the key', async () => {
    const { sim } = await startTestSimulator({ apiKeys: { [KEY]: {} } });
    const answers = [
      await api(sim, '/v1/avax/supply', { apiKey: KEY }),
      await api(sim, '/v1/avax/supply', { apiKey: `${KEY}x` }),
      await api(sim, '/v1/apiUsageMetrics?orgId=zzz', { apiKey: KEY }),
    ];
    for (const a of answers) {
      expect(a.text).not.toContain(KEY);
      expect([...a.headers.values()].join(' ')).not.toContain(KEY);
    }
    expect(JSON.stringify(sim.requests)).not.toContain(KEY);
    expect(sim.requests.every((r) => r.hadApiKey)).toBe(true);
  });
});

describe('simulator compute-unit rate limit', () => {
  it('answers 429 with retry-after and ratelimit-reset once the minute budget is spent, then recovers', async () => {
    const { sim, clock } = await startTestSimulator({ apiKeys: { [KEY]: { computeUnitsPerMinute: 50 } } });
    clock.advance(15_000); // 15 s into a minute window
    expect((await api(sim, '/v1/transactions', { apiKey: KEY })).headers.get('ratelimit-remaining')).toBe(
      '30',
    );
    expect((await api(sim, '/v1/transactions', { apiKey: KEY })).headers.get('ratelimit-remaining')).toBe(
      '10',
    );
    // A cheap request still fits: supply costs 1 compute unit.
    expect((await api(sim, '/v1/avax/supply', { apiKey: KEY })).status).toBe(200);
    const limited = await api(sim, '/v1/transactions', { apiKey: KEY });
    expectError(limited, 429, 'Rate limit exceeded');
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.headers.get('ratelimit-reset')).toBe('45');
    expect(limited.headers.get('ratelimit-limit')).toBe('50');
    clock.advance(44_000);
    expectError(await api(sim, '/v1/transactions', { apiKey: KEY }), 429);
    clock.advance(1_000);
    const recovered = await api(sim, '/v1/transactions', { apiKey: KEY });
    expect(recovered.status).toBe(200);
    expect(recovered.headers.get('ratelimit-remaining')).toBe('30');
  });

  it('keeps one budget per key', async () => {
    const { sim } = await startTestSimulator({
      apiKeys: { [KEY]: { computeUnitsPerMinute: 20 }, [OTHER]: { computeUnitsPerMinute: 20 } },
    });
    expect((await api(sim, '/v1/transactions', { apiKey: KEY })).status).toBe(200);
    expectError(await api(sim, '/v1/transactions', { apiKey: KEY }), 429);
    expect((await api(sim, '/v1/transactions', { apiKey: OTHER })).status).toBe(200);
  });

  it('shares one budget of 6000 compute units per minute among keyless requests', async () => {
    const { sim } = await startTestSimulator();
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      statuses.push(
        (await api(sim, '/v1/networks/mainnet/rewards?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'))
          .status,
      );
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    const last = await api(
      sim,
      '/v1/networks/mainnet/rewards?nodeIds=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
    );
    expectError(last, 429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.headers.get('ratelimit-reset')).toBe(last.headers.get('retry-after'));
    expect(statuses[60]).toBe(429);
  });
});
