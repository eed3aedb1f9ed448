import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSharedBudget } from '../../../src/queue/budget.js';
import { redisSharedParts } from '../../../src/queue/redis-backend.js';
import { createManualClock } from '../../../src/runtime/clock.js';
import { createLogger } from '../../../src/runtime/logger.js';
import {
  type AttemptEvent,
  type CreateExportRequest,
  createDataApiClient,
  createMeter,
  type DataApiClientOptions,
  isUnrecoverable,
  paginate,
  RecordRejectedError,
  UpstreamHttpError,
  UpstreamNetworkError,
  UpstreamResponseError,
} from '../../../src/upstream/index.js';
import { deletePrefix } from '../../support/service.js';
import * as f from '../../unit/upstream/fixtures.js';

const KEY = 'test-key-0123456789abcdef';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Responder = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
/** One agent per client: a keep-alive socket of an earlier test must not carry a later test's request. */
let agents: Agent[] = [];
let recorded: Recorded[] = [];
/** Responders for the next requests, in order; the last one answers every further request. */
let script: Responder[] = [];
let onRequest: (() => void) | undefined;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Responder =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
const errorBody = (status: number, error: string, message: string | string[] = error) =>
  json(status, { message, statusCode: status, error });
const never: Responder = () => {};
const reset: Responder = (req) => req.socket.destroy();

function respond(...responders: Responder[]): void {
  script = responders;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      recorded.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const responder = script.length > 1 ? script.shift() : script[0];
      onRequest?.();
      (responder ?? errorBody(404, 'Not Found'))(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterEach(async () => {
  await Promise.all(agents.map((a) => a.destroy()));
  agents = [];
  recorded = [];
  script = [];
  onRequest = undefined;
  // Requests left hanging on purpose (timeouts, aborts) must not outlive their test.
  server.closeAllConnections();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
});

/** A client whose waits are recorded instead of slept, and whose attempts are recorded. */
function setup(overrides: Partial<DataApiClientOptions> = {}) {
  const delays: number[] = [];
  const events: AttemptEvent[] = [];
  const agent = new Agent({ keepAliveTimeout: 1_000 });
  agents.push(agent);
  const client = createDataApiClient({
    baseUrl,
    apiKey: KEY,
    version: '1.2.3',
    dispatcher: agent,
    random: () => 0.5,
    sleep: async (ms) => {
      delays.push(ms);
    },
    onAttempt: (e) => events.push(e),
    ...overrides,
  });
  return { client, delays, events };
}

const only = () => {
  expect(recorded).toHaveLength(1);
  return recorded[0]!;
};
const query = (r: Recorded) => Object.fromEntries(new URL(r.url, 'http://x').searchParams);
const caught = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: unknown) => err,
  );

describe('endpoints', () => {
  it('getSupply GETs /v1/avax/supply with the key and user-agent, and returns the parsed supply', async () => {
    const { client } = setup();
    respond(json(200, f.supply));
    await expect(client.getSupply()).resolves.toEqual(f.supply);
    const r = only();
    expect(r.method).toBe('GET');
    expect(r.url).toBe('/v1/avax/supply');
    expect(r.headers['x-glacier-api-key']).toBe(KEY);
    expect(r.headers['user-agent']).toBe('glacier-collector/1.2.3');
    expect(r.headers.accept).toBe('application/json');
  });

  it('sends no key header when no key is configured, and honours a custom user-agent', async () => {
    const { client } = setup({ apiKey: undefined, userAgent: 'custom/9' });
    respond(json(200, f.supply));
    await client.getSupply();
    expect(only().headers['x-glacier-api-key']).toBeUndefined();
    expect(only().headers['user-agent']).toBe('custom/9');
  });

  it('listLatestTransactions sends its query and returns a page', async () => {
    const { client } = setup();
    respond(json(200, { transactions: [f.transaction], nextPageToken: 'next-1' }));
    const page = await client.listLatestTransactions({
      network: 'mainnet',
      status: 'failed',
      pageSize: 50,
      pageToken: 'tok/=+',
    });
    expect(page).toEqual({ items: [f.transaction], nextPageToken: 'next-1' });
    const r = only();
    expect(new URL(r.url, 'http://x').pathname).toBe('/v1/transactions');
    expect(query(r)).toEqual({ network: 'mainnet', status: 'failed', pageSize: '50', pageToken: 'tok/=+' });
  });

  it('omits undefined query parameters', async () => {
    const { client } = setup();
    respond(json(200, { transactions: [] }));
    const page = await client.listLatestTransactions({ network: undefined });
    expect(page).toEqual({ items: [], nextPageToken: undefined });
    expect(only().url).toBe('/v1/transactions');
  });

  it('listHistoricalRewards joins addresses and nodeIds with commas and keeps the price exact', async () => {
    const { client } = setup();
    respond(json(200, f.rewardsText('0.1000000000000000055511151231257827', 'p2')));
    const page = await client.listHistoricalRewards({
      network: 'fuji',
      addresses: ['fuji1aaa', 'P-fuji1bbb'],
      nodeIds: ['NodeID-1'],
      pageSize: 100,
      sortOrder: 'asc',
      currency: 'eur',
    });
    expect(page.nextPageToken).toBe('p2');
    expect(page.items[0]?.reward.historicalPrice?.value).toBe('0.1000000000000000055511151231257827');
    const r = only();
    expect(r.url).toBe(
      '/v1/networks/fuji/rewards?addresses=fuji1aaa,P-fuji1bbb&nodeIds=NodeID-1&pageSize=100&sortOrder=asc&currency=eur',
    );
  });

  it('listHistoricalRewards refuses to spend a request without addresses or nodeIds', async () => {
    const { client } = setup();
    await expect(client.listHistoricalRewards({ network: 'mainnet', addresses: [] })).rejects.toThrow(
      TypeError,
    );
    expect(recorded).toHaveLength(0);
  });

  it('getApiUsageMetrics sends its filters', async () => {
    const { client } = setup();
    respond(json(200, f.apiUsageMetrics));
    await expect(
      client.getApiUsageMetrics({
        orgId: 'org-1',
        startTimestamp: 1700000000,
        endTimestamp: 1700086400,
        timeInterval: 'daily',
        groupBy: 'requestPath',
        requestType: 'data',
      }),
    ).resolves.toEqual(f.apiUsageMetrics);
    const r = only();
    expect(new URL(r.url, 'http://x').pathname).toBe('/v1/apiUsageMetrics');
    expect(query(r)).toEqual({
      orgId: 'org-1',
      startTimestamp: '1700000000',
      endTimestamp: '1700086400',
      timeInterval: 'daily',
      groupBy: 'requestPath',
      requestType: 'data',
    });
  });

  it('getPrimaryNetworkRpcUsageMetrics sends network as a query parameter', async () => {
    const { client } = setup();
    respond(json(200, f.primaryNetworkRpcUsageMetrics));
    await expect(
      client.getPrimaryNetworkRpcUsageMetrics({ network: 'mainnet', groupBy: 'country', country: 'T1' }),
    ).resolves.toEqual(f.primaryNetworkRpcUsageMetrics);
    expect(only().url).toBe('/v1/primaryNetworkRpcUsageMetrics?network=mainnet&groupBy=country&country=T1');
  });

  it('getSubnetRpcUsageMetrics sends its filters and keeps the bypass token out of attempt events', async () => {
    const { client, events } = setup();
    respond(json(200, f.subnetRpcUsageMetrics));
    await expect(
      client.getSubnetRpcUsageMetrics({
        chainId: '43114',
        rpcMethod: 'eth_call',
        rlBypassApiToken: 'bypass-secret',
      }),
    ).resolves.toEqual(f.subnetRpcUsageMetrics);
    expect(only().url).toBe(
      '/v1/subnetRpcUsageMetrics?chainId=43114&rpcMethod=eth_call&rlBypassApiToken=bypass-secret',
    );
    expect(events[0]?.path).toBe(
      '/v1/subnetRpcUsageMetrics?chainId=43114&rpcMethod=eth_call&rlBypassApiToken=REDACTED',
    );
  });

  it('getAggregatedSignatures encodes path parameters and accepts its 201', async () => {
    const { client } = setup();
    respond(json(201, f.signature));
    await expect(
      client.getAggregatedSignatures({ network: 'mainnet', txHash: 'abc/../x?y' }),
    ).resolves.toEqual(f.signature);
    expect(only().url).toBe('/v1/signatureAggregator/mainnet/aggregateSignatures/abc%2F..%2Fx%3Fy');
  });

  it('accepts 200 where 201 is documented (and the reverse)', async () => {
    const { client } = setup();
    respond(json(200, f.signature), json(201, f.supply));
    await expect(client.getAggregatedSignatures({ network: 'fuji', txHash: 'h' })).resolves.toEqual(
      f.signature,
    );
    await expect(client.getSupply()).resolves.toEqual(f.supply);
  });

  it('createTransactionExport POSTs the request as JSON and returns the operation', async () => {
    const { client } = setup();
    respond(json(201, f.operation));
    const body: CreateExportRequest = {
      type: 'TRANSACTION_EXPORT_PRIMARY_NETWORK',
      firstDate: '2025-01-01',
      lastDate: '2025-01-31',
      options: { addresses: ['avax1xyz'], includeChains: ['p-chain'] },
    };
    await expect(client.createTransactionExport(body)).resolves.toEqual(f.operation);
    const r = only();
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1/operations/transactions:export');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-glacier-api-key']).toBe(KEY);
    expect(JSON.parse(r.body)).toEqual(body);
  });

  it('getOperation GETs the operation by its encoded id', async () => {
    const { client } = setup();
    respond(json(200, f.completedOperation));
    await expect(client.getOperation('7c9e6679 x')).resolves.toEqual(f.completedOperation);
    expect(only().url).toBe('/v1/operations/7c9e6679%20x');
  });

  it('paginates over listLatestTransactions until the last page', async () => {
    const { client } = setup();
    respond(
      json(200, { transactions: [f.transaction], nextPageToken: 'a' }),
      json(200, { transactions: [f.transaction], nextPageToken: 'b' }),
      json(200, { transactions: [f.transaction] }),
    );
    let items = 0;
    for await (const page of paginate((pageToken) =>
      client.listLatestTransactions({ pageToken, pageSize: 1 }),
    )) {
      items += page.items.length;
    }
    expect(items).toBe(3);
    expect(recorded.map((r) => query(r).pageToken)).toEqual([undefined, 'a', 'b']);
  });
});

describe('retries', () => {
  it('retries a 429 after the retry-after the server asked for', async () => {
    const { client, delays, events } = setup();
    respond(
      json(
        429,
        { message: 'Too Many Requests', statusCode: 429, error: 'Too Many Requests' },
        { 'retry-after': '3' },
      ),
      json(200, f.supply),
    );
    await expect(client.getSupply()).resolves.toEqual(f.supply);
    expect(recorded).toHaveLength(2);
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(3_000);
    expect(delays[0]).toBeLessThanOrEqual(4_000);
    expect(events.map((e) => [e.status, e.willRetry])).toEqual([
      [429, true],
      [200, false],
    ]);
    expect(events[0]?.delayMs).toBe(delays[0]);
  });

  it('retries a 429 after ratelimit-reset when there is no retry-after', async () => {
    const { client, delays } = setup();
    respond(
      json(429, { message: 'x', statusCode: 429, error: 'y' }, { 'ratelimit-reset': '5' }),
      json(200, f.supply),
    );
    await client.getSupply();
    expect(delays[0]).toBeGreaterThanOrEqual(5_000);
    expect(delays[0]).toBeLessThanOrEqual(6_000);
  });

  it('gives up at once with the 429 when retry-after is longer than maxRetryAfterMs', async () => {
    const { client, delays } = setup({ retry: { maxRetryAfterMs: 10_000 } });
    respond(
      json(429, { message: 'later', statusCode: 429, error: 'Too Many Requests' }, { 'retry-after': '600' }),
    );
    const err = await caught(client.getSupply());
    expect(err).toBeInstanceOf(UpstreamHttpError);
    expect(err).toMatchObject({ status: 429, retryable: true, retryAfterMs: 600_000 });
    expect(isUnrecoverable(err)).toBe(false);
    expect(recorded).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('says so when retry-after is longer than the client waits or than the call has left', async () => {
    const tooLong = setup({ retry: { maxRetryAfterMs: 10_000 } });
    respond(
      json(429, { message: 'later', statusCode: 429, error: 'Too Many Requests' }, { 'retry-after': '600' }),
    );
    const err = (await caught(tooLong.client.getSupply())) as Error;
    expect(err.message).toContain(
      "not retried: the upstream's retry-after of 600 s is longer than the client waits (10 s)",
    );

    const pastDeadline = setup({ callTimeoutMs: 20_000 });
    respond(
      json(429, { message: 'later', statusCode: 429, error: 'Too Many Requests' }, { 'retry-after': '45' }),
    );
    const late = (await caught(pastDeadline.client.getSupply())) as Error;
    expect(late).toMatchObject({ status: 429 });
    expect(late.message).toContain(
      "not retried: the upstream's retry-after of 45 s would pass the call's time limit (client.callTimeout, 20 s)",
    );
  });

  it('sends credentials of the base URL as Basic auth, never in a URL or an error', async () => {
    const { client } = setup({ baseUrl: baseUrl.replace('http://', 'http://proxy%20user:hunter2@') });
    respond(errorBody(403, 'Forbidden'));
    const err = (await caught(client.getSupply())) as Error;
    const r = only();
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('proxy user:hunter2').toString('base64')}`);
    expect(r.url).toBe('/v1/avax/supply');
    expect(inspect(err, { depth: 5 })).not.toContain('hunter2');
  });

  it('refuses a base URL with a query string', () => {
    expect(() => setup({ baseUrl: `${baseUrl}?token=abc` })).toThrow(/no query string/);
  });

  it('retries 503, 502 and 500 with growing backoff, then returns the answer', async () => {
    const { client, delays } = setup({ retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 10_000 } });
    respond(
      errorBody(503, 'Service Unavailable'),
      errorBody(502, 'Bad Gateway'),
      (_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>oops</h1>'),
      json(200, f.supply),
    );
    await expect(client.getSupply()).resolves.toEqual(f.supply);
    expect(recorded).toHaveLength(4);
    // random() = 0.5: 3/4 of 100, 200, 400
    expect(delays).toEqual([75, 150, 300]);
  });

  it('retries after the connection is reset, then returns the answer', async () => {
    const { client, events } = setup();
    respond(reset, json(200, f.supply));
    await expect(client.getSupply()).resolves.toEqual(f.supply);
    expect(recorded).toHaveLength(2);
    expect(events[0]).toMatchObject({ attempt: 1, willRetry: true });
    expect(events[0]?.status).toBeUndefined();
    expect(events[0]?.error).toBeTruthy();
  });

  it('fails with UpstreamNetworkError when the connection keeps being reset', async () => {
    const { client } = setup({ retry: { maxAttempts: 3 } });
    respond(reset);
    const err = await caught(client.getSupply());
    expect(err).toBeInstanceOf(UpstreamNetworkError);
    expect(err).toMatchObject({ method: 'GET', path: '/v1/avax/supply', attempts: 3 });
    expect(recorded).toHaveLength(3);
  });

  it.each([
    [400, 'Bad Request', ''],
    [
      401,
      'Unauthorized',
      ' (the API refused the key: check GLACIER_API_KEY (or the file GLACIER_API_KEY_FILE names))',
    ],
    [
      403,
      'Forbidden',
      ' (the key may not read this: check that GLACIER_API_KEY (or the file GLACIER_API_KEY_FILE names) is the key of the organisation asked for)',
    ],
    [404, 'Not Found', ''],
  ])('does not retry a %i and marks it unrecoverable', async (status, error, note) => {
    const { client, delays } = setup();
    respond(errorBody(status, error, ['first problem', 'second problem']));
    const err = await caught(client.getOperation('op-1'));
    expect(recorded).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(err).toBeInstanceOf(UpstreamHttpError);
    expect(err).toMatchObject({
      status,
      retryable: false,
      method: 'GET',
      path: '/v1/operations/op-1',
      body: { message: ['first problem', 'second problem'], statusCode: status, error },
    });
    expect((err as Error).message).toBe(
      `[GET] /v1/operations/op-1: ${status} ${error}: first problem; second problem${note}`,
    );
    expect(isUnrecoverable(err)).toBe(true);
  });

  it('a 401 without a key says to set GLACIER_API_KEY or GLACIER_API_KEY_FILE', async () => {
    const { client } = setup({ apiKey: undefined });
    respond(errorBody(401, 'Unauthorized', 'An API key is required'));
    const err = await caught(client.getSupply());
    expect((err as Error).message).toBe(
      '[GET] /v1/avax/supply: 401 Unauthorized: An API key is required (no API key was sent: set GLACIER_API_KEY (or GLACIER_API_KEY_FILE, a file holding it))',
    );
  });

  it('fails with the last UpstreamHttpError once the attempts run out', async () => {
    const { client, delays } = setup({ retry: { maxAttempts: 3 } });
    respond(errorBody(503, 'Service Unavailable', 'maintenance'));
    const err = await caught(client.listLatestTransactions());
    expect(err).toBeInstanceOf(UpstreamHttpError);
    expect(err).toMatchObject({ status: 503, retryable: true });
    expect((err as Error).message).toBe('[GET] /v1/transactions: 503 Service Unavailable: maintenance');
    expect(isUnrecoverable(err)).toBe(false);
    expect(recorded).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('keeps a non-JSON error body as a short snippet', async () => {
    const { client } = setup({ retry: { maxAttempts: 1 } });
    respond((_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end(`<html>${'x'.repeat(5_000)}`),
    );
    const err = (await caught(client.getSupply())) as UpstreamHttpError;
    expect(typeof err.body).toBe('string');
    expect((err.body as string).startsWith('<html>')).toBe(true);
    expect((err.body as string).length).toBeLessThanOrEqual(300);
  });

  it('does not follow a redirect (the key must not travel elsewhere)', async () => {
    const { client } = setup();
    respond((_req, res) => res.writeHead(302, { location: 'http://example.invalid/steal' }).end());
    const err = await caught(client.getSupply());
    expect(err).toMatchObject({ status: 302 });
    expect(isUnrecoverable(err)).toBe(true);
    expect(recorded).toHaveLength(1);
  });
});

describe('malformed responses fail loudly without a retry', () => {
  it('a truncated JSON body is an UpstreamResponseError (invalid-json)', async () => {
    const { client } = setup();
    respond(json(200, '{"transactions":[{"blockNumber":"1"'));
    const err = await caught(client.listLatestTransactions());
    expect(err).toBeInstanceOf(UpstreamResponseError);
    expect(err).toMatchObject({ kind: 'invalid-json', status: 200, path: '/v1/transactions' });
    expect(recorded).toHaveLength(1);
  });

  it('an envelope of the wrong shape is an UpstreamResponseError (shape) naming the field', async () => {
    const { client, events } = setup();
    respond(json(200, { transactions: { not: 'a list' }, nextPageToken: 7 }));
    const err = await caught(client.listLatestTransactions());
    expect(err).toBeInstanceOf(UpstreamResponseError);
    expect(err).toMatchObject({ kind: 'shape' });
    expect((err as UpstreamResponseError).issues).toContain('transactions: Invalid input: expected array');
    expect((err as UpstreamResponseError).issues).toContain('nextPageToken');
    expect(isUnrecoverable(err)).toBe(true);
    expect(recorded).toHaveLength(1);
    expect(events).toMatchObject([{ status: 200, willRetry: false }]);
  });

  it('a record of the wrong shape in a good envelope is set aside, the page kept', async () => {
    const { client } = setup();
    const { txHash: _dropped, ...broken } = f.transaction;
    respond(json(200, { transactions: [f.transaction, broken], nextPageToken: 'next' }));
    const page = await client.listLatestTransactions();
    expect(page.items.map((t) => t.txHash)).toEqual([f.transaction.txHash]);
    expect(page.nextPageToken).toBe('next');
    expect(page.findings?.rejected).toMatchObject([
      { reason: 'schema', fields: ['txHash'], key: undefined, raw: broken },
    ]);
    expect(page.findings?.rejected[0]?.problems).toContain('txHash: Invalid input: expected string');
  });

  it('a signature that fails its schema is a RecordRejectedError carrying it', async () => {
    const { client } = setup();
    respond(json(201, { signedMessage: 'zz not hex' }));
    const err = await caught(client.getAggregatedSignatures({ network: 'mainnet', txHash: 'x' }));
    expect(err).toBeInstanceOf(RecordRejectedError);
    expect((err as RecordRejectedError).findings.rejected[0]).toMatchObject({ fields: ['signedMessage'] });
    expect(isUnrecoverable(err)).toBe(true);
  });

  it('a body cut off by the connection is an UpstreamResponseError (truncated)', async () => {
    const { client } = setup();
    respond((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10000' });
      res.write('{"transactions":[');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const err = await caught(client.listLatestTransactions());
    expect(err).toBeInstanceOf(UpstreamResponseError);
    expect(err).toMatchObject({ kind: 'truncated' });
    expect(recorded).toHaveLength(1);
  });

  it('a body over the size cap is an UpstreamResponseError (too-large)', async () => {
    const { client } = setup({ maxBodyBytes: 64 });
    respond(json(200, f.supply));
    const err = await caught(client.getSupply());
    expect(err).toMatchObject({ kind: 'too-large' });
    expect(recorded).toHaveLength(1);
  });
});

describe('timeouts and aborts', () => {
  it('retries an attempt that times out, then fails with UpstreamNetworkError', async () => {
    const { client, events } = setup({ attemptTimeoutMs: 100, retry: { maxAttempts: 2 } });
    respond(never);
    const err = await caught(client.getSupply());
    expect(err).toBeInstanceOf(UpstreamNetworkError);
    expect((err as Error).message).toContain('attempt timed out after 100 ms');
    expect(recorded).toHaveLength(2);
    expect(events.map((e) => e.willRetry)).toEqual([true, false]);
  });

  it('starts the attempt timeout once the shared budget lets the request go, not while it waits', async () => {
    const url = 'redis://127.0.0.1:6379';
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    const prefix = `glacier-test-client:${randomUUID()}`;
    const clock = createManualClock(Date.UTC(2025, 5, 15, 12, 0, 30));
    try {
      // One request a minute: the second waits for the next minute, longer than an attempt may take.
      const budget = createSharedBudget({
        backend: redisSharedParts(redis, prefix),
        prefix: 'budget',
        perMinute: 1,
        perDay: 100,
        clock,
        log: createLogger({ level: 'silent', pretty: false }),
        sleep: async (ms) => {
          clock.advance(ms);
          await new Promise((resolve) => setTimeout(resolve, 300));
        },
      });
      const { client, events } = setup({ attemptTimeoutMs: 100, budget, clock });
      respond(json(200, f.supply));
      await client.getSupply();
      await expect(client.getSupply()).resolves.toEqual(f.supply);
      // Each call one attempt, sent and answered: no timed-out attempt spent the minute's unit.
      expect(events.map((e) => [e.status, e.willRetry])).toEqual([
        [200, false],
        [200, false],
      ]);
      expect(recorded).toHaveLength(2);
    } finally {
      redis.disconnect();
      await deletePrefix(url, prefix);
    }
  });

  it('bounds the whole call by callTimeoutMs', async () => {
    const { client } = setup({ attemptTimeoutMs: 60_000, callTimeoutMs: 200 });
    respond(never);
    const err = await caught(client.getSupply());
    expect(err).toBeInstanceOf(UpstreamNetworkError);
    expect((err as Error).message).toContain('call timed out after 200 ms');
    expect(recorded).toHaveLength(1);
  });

  it('stops at once with the abort reason when the caller aborts during a request', async () => {
    const { client, events } = setup();
    const controller = new AbortController();
    const reason = new Error('shutting down');
    onRequest = () => controller.abort(reason);
    respond(never);
    await expect(client.getSupply({ signal: controller.signal })).rejects.toBe(reason);
    expect(recorded).toHaveLength(1);
    expect(events).toMatchObject([{ willRetry: false }]);
  });

  it('stops at once with the abort reason when the caller aborts during a backoff wait', async () => {
    // The real sleep: the wait is 30 s, so only the abort can end this test in time.
    const { client } = setup({ sleep: undefined });
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    respond(
      json(503, { message: 'x', statusCode: 503, error: 'Service Unavailable' }, { 'retry-after': '30' }),
    );
    onRequest = () => setTimeout(() => controller.abort(reason), 20);
    await expect(client.getSupply({ signal: controller.signal })).rejects.toBe(reason);
    expect(recorded).toHaveLength(1);
  });

  it('does not start a call whose signal is already aborted', async () => {
    const { client } = setup();
    const reason = new Error('already cancelled');
    await expect(client.getSupply({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(recorded).toHaveLength(0);
  });

  it('aborts calls of a scoped view when its signal aborts', async () => {
    const { client } = setup();
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    const run = client.scoped({ signal: controller.signal });
    onRequest = () => controller.abort(reason);
    respond(never);
    await expect(run.getSupply()).rejects.toBe(reason);
  });
});

describe('metering', () => {
  it('counts every attempt that got a status, with its CU cost, per endpoint', async () => {
    const { client } = setup();
    respond(errorBody(503, 'Service Unavailable'), json(200, { transactions: [] }), json(200, f.supply));
    await client.listLatestTransactions();
    await client.getSupply();
    expect(client.meter.snapshot()).toEqual({
      requests: 3,
      computeUnits: 20 + 20 + 1,
      byEndpoint: {
        transactions: { requests: 2, computeUnits: 40 },
        supply: { requests: 1, computeUnits: 1 },
      },
    });
  });

  it('does not count attempts that got no answer (connection reset)', async () => {
    const { client } = setup();
    respond(reset, json(200, f.supply));
    await client.getSupply();
    expect(client.meter.snapshot()).toMatchObject({ requests: 1, computeUnits: 1 });
  });

  it('counts a failed call too (the 400 was charged)', async () => {
    const { client } = setup();
    respond(errorBody(400, 'Bad Request'));
    await caught(client.getApiUsageMetrics());
    expect(client.meter.snapshot().byEndpoint).toEqual({
      apiUsageMetrics: { requests: 1, computeUnits: 200 },
    });
  });

  it('meters a scoped view separately, while the lifetime meter counts everything', async () => {
    const { client } = setup();
    const runMeter = createMeter();
    const run = client.scoped({ meter: runMeter });
    respond(json(200, f.rewardsText('1')), json(200, f.supply));
    await run.listHistoricalRewards({ network: 'mainnet', nodeIds: ['NodeID-1'] });
    await client.getSupply();
    expect(run.meter).toBe(runMeter);
    expect(runMeter.snapshot()).toEqual({
      requests: 1,
      computeUnits: 100,
      byEndpoint: { rewards: { requests: 1, computeUnits: 100 } },
    });
    expect(client.meter.snapshot()).toMatchObject({ requests: 2, computeUnits: 101 });
  });
});

describe('the API key stays secret', () => {
  it('appears in no error and no attempt event, even when the upstream echoes it', async () => {
    const { client, events } = setup({ attemptTimeoutMs: 100, retry: { maxAttempts: 2 } });
    const errors: unknown[] = [];
    const scenarios: [Responder[], () => Promise<unknown>][] = [
      [[errorBody(401, 'Unauthorized', `invalid api key ${KEY}`)], () => client.getSupply()],
      [[errorBody(400, 'Bad Request', [`bad header x-glacier-api-key: ${KEY}`])], () => client.getSupply()],
      [
        [(_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`crash with key=${KEY}`)],
        () => client.getSupply(),
      ],
      [[json(200, `not json ${KEY}`)], () => client.getSupply()],
      [[json(200, { ...f.supply, totalSupply: KEY })], () => client.getSupply()],
      [[reset], () => client.getSupply()],
      [[never], () => client.getSupply()],
    ];
    for (const [responders, call] of scenarios) {
      respond(...responders);
      errors.push(await caught(call()));
    }
    expect(errors).toHaveLength(scenarios.length);
    expect((errors[0] as Error).message).toContain('***');
    const serialized = [
      ...errors.map((e) => inspect(e, { depth: 10, showHidden: true })),
      ...errors.map((e) => JSON.stringify(e)),
      JSON.stringify(events),
      inspect(client.meter.snapshot(), { depth: 10 }),
    ].join('\n');
    expect(serialized).not.toContain(KEY);
    // ...and yet every request carried it.
    expect(recorded.every((r) => r.headers['x-glacier-api-key'] === KEY)).toBe(true);
  });

  it('refuses an API key that could not be a header value, without echoing it', () => {
    const bad = 'line\nbreak-key';
    expect(() => createDataApiClient({ baseUrl, apiKey: bad })).toThrow(/visible ASCII/);
    try {
      createDataApiClient({ baseUrl, apiKey: bad });
    } catch (err) {
      expect(inspect(err)).not.toContain('break-key');
    }
  });
});
