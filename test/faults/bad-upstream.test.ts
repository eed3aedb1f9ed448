import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../support/cli.js';
import { API_KEY, cliEnv, query, startFaultSimulator, workspace } from './support.js';

/**
 * Bad upstream bodies: each fails `run transactions` with a clear error and writes nothing (no row,
 * no cursor); a redirect is not followed, so the API key never reaches the other host. A good body
 * whose records are bad is not a bad body: its records are set aside and the run succeeds. The
 * simulator injects the faults it has; a tiny server of this file's own serves the others.
 */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}

let sim: SimulatorHandle;
let handler: Handler = (_req, res) => res.end();
let upstream: { server: Server; url: string };
let other: { server: Server; url: string };
const otherRequests: IncomingMessage['headers'][] = [];

beforeAll(async () => {
  sim = await startFaultSimulator();
  upstream = await serve((req, res) => handler(req, res));
  // "Another host": another loopback address, not only another port.
  other = await serve((req, res) => {
    otherRequests.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"transactions":[]}');
  }, '127.0.0.2');
});

afterAll(async () => {
  for (const s of [upstream.server, other.server]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  await sim.close();
});

const config = {
  jobs: { transactions: { schedule: '* * * * *', networks: ['mainnet'], pageSize: 100, maxPages: 3 } },
  client: { attemptTimeout: '1s', callTimeout: '3s', maxAttempts: 2 },
};

/** Runs `run transactions` against `baseUrl`; expects a failure whose output matches `expected`, and nothing written. */
async function expectCleanFailure(baseUrl: string, expected: RegExp): Promise<string> {
  const ws = await workspace(config);
  try {
    // Debug logs say how far it got, should it hang: it is killed with its output before the test's time.
    const r = await runCli(
      ['run', 'transactions'],
      { ...cliEnv(sim, ws), GLACIER_BASE_URL: baseUrl, LOG_LEVEL: 'debug' },
      { timeoutMs: 45_000 },
    );
    const output = r.stdout + r.stderr;
    expect(r.code, output).toBe(1);
    expect(output).toMatch(expected);
    expect(output).not.toContain(API_KEY);
    expect(await query(ws.location, 'SELECT * FROM transactions')).toEqual([]);
    expect(await query(ws.location, 'SELECT * FROM sync_state')).toEqual([]);
    const runs = await query<{ status: string; error: string }>(
      ws.location,
      'SELECT status, error FROM job_runs',
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('failed');
    expect(runs[0]!.error).toMatch(expected);
    return output;
  } finally {
    await ws.cleanup();
  }
}

describe('bad upstream bodies fail the run with a clear error and write nothing', { timeout: 60_000 }, () => {
  it('malformed JSON (the simulator cuts the body in half)', async () => {
    sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'truncate' }] } } });
    await expectCleanFailure(
      sim.url,
      /\/v1\/transactions: 200 response (is not valid JSON|body was cut short)/,
    );
    sim.setFaults({});
  });

  it('an envelope of the wrong shape (the simulator turns the list into an object)', async () => {
    sim.setFaults({ endpoints: { transactions: { plan: [{ kind: 'malformed' }] } } });
    await expectCleanFailure(
      sim.url,
      /response does not match the schema: transactions: Invalid input: expected array/,
    );
    sim.setFaults({});
  });

  it('an HTML page with status 200', async () => {
    handler = (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Maintenance</body></html>');
    await expectCleanFailure(upstream.url, /200 response is not valid JSON/);
  });

  it('a page token that is no token', async () => {
    handler = (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"transactions":[],"nextPageToken":"a\\u0000${'b'.repeat(10)}"}`);
    await expectCleanFailure(
      upstream.url,
      /response does not match the schema: nextPageToken: expected a page token/,
    );
  });

  it('items missing required fields are set aside, not the page: the run succeeds', async () => {
    handler = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"transactions":[{"txHash":"0x01"}]}');
    const ws = await workspace(config);
    try {
      const r = await runCli(['run', 'transactions'], { ...cliEnv(sim, ws), GLACIER_BASE_URL: upstream.url });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout + r.stderr).toContain('record set aside');
      const [aside] = await query<{ fields: string; reason: string }>(
        ws.location,
        'SELECT fields, reason FROM rejected_records',
      );
      expect(aside).toMatchObject({ reason: 'schema' });
      expect(aside!.fields).toContain('blockNumber');
      expect(await query(ws.location, 'SELECT * FROM transactions')).toEqual([]);
    } finally {
      await ws.cleanup();
    }
  });

  it('a body far larger than any page', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(1024 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 64 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.write('{"transactions":["');
      more();
    };
    await expectCleanFailure(upstream.url, /response body is larger than the client accepts: over \d+ bytes/);
  });

  it('an upstream that accepts the connection and never answers', async () => {
    handler = () => undefined;
    await expectCleanFailure(upstream.url, /timed out after \d+ ms/);
  });

  it('a redirect to another host is not followed: the key never leaves for it', async () => {
    handler = (req, res) => res.writeHead(302, { location: `${other.url}${req.url}` }).end();
    await expectCleanFailure(upstream.url, /302 Found/);
    expect(otherRequests).toEqual([]);
  });
});
