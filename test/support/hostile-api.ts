/**
 * A small local server playing the Data API as a hostile upstream would: each test scripts the
 * answers of the few routes it needs (JSON bodies, statuses, redirects), and the server counts every
 * request it gets, so a test can say what a run spent. Loopback only, port 0.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import type { Clock } from '../../src/runtime/clock.js';
import { createDataApiClient, type DataApiClient } from '../../src/upstream/index.js';

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless a string. */
  body?: unknown;
}

/** `METHOD /path` (no query) → its answer; a missing route answers 404. */
export type Routes = Record<string, (req: IncomingMessage, url: URL) => Answer | Promise<Answer>>;

export interface HostileApi {
  url: string;
  /** Every request received, as `METHOD /path?query`. */
  requests: string[];
  close(): Promise<void>;
}

export async function startHostileApi(routes: Routes): Promise<HostileApi> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://api.invalid');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const route = routes[`${req.method} ${url.pathname}`];
    Promise.resolve(route ? route(req, url) : { status: 404, body: { message: 'no route', statusCode: 404 } })
      .then((answer) => {
        const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(text);
      })
      .catch((err: Error) => {
        res.writeHead(500);
        res.end(err.message);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An export operation as GET /v1/operations/{id} or the POST answers it. */
export function operation(fields: {
  operationId: string;
  operationStatus?: string;
  downloadUrl?: string;
  message?: string;
  code?: string;
}): Record<string, unknown> {
  return {
    operationId: fields.operationId,
    operationType: 'TRANSACTION_EXPORT_EVM',
    operationStatus: fields.operationStatus ?? 'COMPLETED',
    ...(fields.message !== undefined && { message: fields.message }),
    metadata: {
      ...(fields.downloadUrl !== undefined && { downloadUrl: fields.downloadUrl }),
      ...(fields.code !== undefined && { code: fields.code }),
    },
    createdAtTimestamp: 1_750_000_000_000,
    updatedAtTimestamp: 1_750_000_100_000,
  };
}

/** A download host on loopback giving every request to `answer`; counts them. */
export async function startDownloadHost(answer: (res: ServerResponse) => void) {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A Data API client of `api` for a test: waits between retries skipped, its dispatcher destroyed by
 * the cleanup pushed onto `cleanups`.
 */
export function hostileClient(
  api: Pick<HostileApi, 'url'>,
  apiKey: string,
  clock: Clock,
  cleanups: (() => void | Promise<void>)[],
): DataApiClient {
  const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
  cleanups.push(() => dispatcher.destroy());
  return createDataApiClient({ baseUrl: api.url, apiKey, clock, dispatcher, sleep: async () => undefined });
}
