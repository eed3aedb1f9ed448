/**
 * The HTTP server on METRICS_HOST:METRICS_PORT: `/metrics` (Prometheus text, OpenMetrics when the
 * scraper asks), `/healthz` (the process is alive) and `/readyz` (every readiness check, 503 when
 * one fails; with basic auth, the checks' details for a listed user only). GET and HEAD; nothing
 * else is served.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { WebConfig } from '../config/web-config.js';
import type { Logger } from '../runtime/logger.js';
import type { Metrics, Readiness } from './index.js';
import { clientCertProblem, createBasicAuth, tlsOptions } from './web-access.js';

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  log: Logger;
  /** Without it, /metrics answers 404 (a process that serves health only). */
  metrics?: Metrics | undefined;
  readiness: () => Promise<Readiness>;
  /** Longest wait for the readiness checks before /readyz answers 503. @defaultValue DEFAULT_READINESS_TIMEOUT_MS (5 s) */
  readinessTimeoutMs?: number;
  /** METRICS_WEB_CONFIG: TLS for every path, basic auth for /metrics and /readyz's details. @defaultValue none: plain HTTP, open */
  webConfig?: WebConfig | undefined;
}

export interface HttpServer {
  url: string;
  port: number;
  /** Stops accepting, closes idle keep-alive sockets, lets requests in flight finish (1 s at most). */
  close(): Promise<void>;
}

/** The readiness report of /readyz (the service's name for it). */
export type ReadyReport = Readiness;

export class HttpServerError extends Error {
  override readonly name = 'HttpServerError';
}

const CLOSE_GRACE_MS = 1000;
/** How long /readyz waits for its checks before answering 503 (a probe's timeout must be longer). */
export const DEFAULT_READINESS_TIMEOUT_MS = 5000;

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { log, metrics } = options;
  const readinessTimeoutMs = options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;

  const web = options.webConfig;
  const tls = web && tlsOptions(web);
  const authorized = web ? createBasicAuth(web) : async () => true;
  const extraHeaders = web?.headers ?? {};

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    const certProblem = web && clientCertProblem(web, req);
    if (certProblem) return send(res, 403, 'text/plain; charset=utf-8', `${certProblem}\n`);
    if (path === '/metrics' && !(await authorized(req))) {
      return send(res, 401, 'text/plain; charset=utf-8', 'unauthorized\n', {
        'www-authenticate': 'Basic realm="glacier-collector", charset="UTF-8"',
      });
    }
    switch (path) {
      case '/metrics': {
        if (!metrics) break;
        const { contentType, body } = await metrics.expose(req.headers.accept);
        return send(res, 200, contentType, body);
      }
      case '/healthz':
        return sendJson(res, 200, { status: 'ok' });
      case '/readyz': {
        const readiness = await readWithin(options.readiness, readinessTimeoutMs);
        const status = readiness.ready ? 'ready' : 'not ready';
        // A readiness probe has no credentials (the kubelet's cannot carry a password outside the
        // manifest): without them it gets the answer, and only a listed user the checks' details.
        if (!(await authorized(req))) return sendJson(res, readiness.ready ? 200 : 503, { status });
        return sendJson(res, readiness.ready ? 200 : 503, { status, checks: readiness.checks });
      }
    }
    return send(res, 404, 'text/plain; charset=utf-8', 'not found: try /metrics, /healthz or /readyz\n');
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: Error) => {
      log.error({ err: err.message, path: req.url }, 'metrics server: request failed');
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
  };
  const server = tls ? createHttpsServer(tls, onRequest) : createServer(onRequest);

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) =>
      reject(
        new HttpServerError(
          `metrics server cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message}`,
          {
            cause: err,
          },
        ),
      );
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => log.error({ err: err.message }, 'metrics server error'));
  const { port } = server.address() as AddressInfo;
  // A wildcard bind is reached on the loopback address (the URL printed for people to open).
  const reachable = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  const host = reachable.includes(':') ? `[${reachable}]` : reachable;

  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

/** The readiness checks, or a failed "readiness" check when they throw or hang. */
async function readWithin(read: () => Promise<Readiness>, ms: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`checks did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } catch (err) {
    return { ready: false, checks: { readiness: { ok: false, error: (err as Error).message } } };
  } finally {
    clearTimeout(timer);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`);
}

function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  // Node sends no body for HEAD, with the same headers as GET.
  res.end(body);
}
