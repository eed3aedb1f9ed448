/**
 * The HTTP server on METRICS_HOST:METRICS_PORT: `/metrics` (Prometheus text, OpenMetrics when the
 * scraper asks), `/healthz` (the process is alive) and `/readyz` (every readiness check, 503 when
 * one fails; with basic auth, the checks' details for a listed user only). GET and HEAD; nothing
 * else is served.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { WebConfig } from '../config/web-config.js';
import type { Logger } from '../runtime/logger.js';
import type { AuthOutcome } from './basic-auth.js';
import type { BcryptCheckerOptions } from './bcrypt-checker.js';
import type { Metrics, Readiness } from './index.js';
import { createWebAccess, type WebAccess } from './web-access.js';

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
  /** How often the web config's files are looked at for a change. @defaultValue RECHECK_MS (1 s) */
  webConfigRecheckMs?: number;
  /** The bounds of bcrypt checks in flight (tests). @defaultValue 2 per lane */
  bcrypt?: BcryptCheckerOptions;
}

export interface HttpServer {
  url: string;
  port: number;
  /**
   * Re-reads METRICS_WEB_CONFIG and its TLS files now (SIGHUP): true when the new one is in force,
   * false when it could not be loaded (the one in force stays, the error is logged), undefined
   * without a web config.
   */
  reloadWebConfig(): Promise<boolean | undefined>;
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

  let server: Server | undefined;
  const web: WebAccess | undefined =
    options.webConfig &&
    createWebAccess({
      config: options.webConfig,
      log,
      setSecureContext: (context) => (server as HttpsServer | undefined)?.setSecureContext(context),
      ...(options.webConfigRecheckMs !== undefined && { recheckMs: options.webConfigRecheckMs }),
      ...(options.bcrypt && { bcrypt: options.bcrypt }),
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [name, value] of Object.entries(web?.headers() ?? {})) res.setHeader(name, value);
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    const certProblem = web?.clientCertProblem(req);
    if (certProblem) return send(res, 403, 'text/plain; charset=utf-8', `${certProblem}\n`);
    // /metrics needs a listed user; /readyz answers anyone, its checks' details only a listed user.
    const outcome =
      web && (path === '/metrics' || path === '/readyz') ? await authorize(web, req, res) : 'ok';
    if (path === '/metrics' && outcome === 'busy') {
      // Refused at once, nothing queued: the checks of new credentials are at their bound.
      return send(res, 429, 'text/plain; charset=utf-8', 'too many authentication attempts\n', {
        'retry-after': '1',
      });
    }
    if (path === '/metrics' && outcome === 'unauthorized') {
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
        // manifest): without them (or with the checks at their bound) it gets the answer, and only
        // a listed user the checks' details.
        if (outcome !== 'ok') return sendJson(res, readiness.ready ? 200 : 503, { status });
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
  const tls = web?.tls;
  server = tls ? createHttpsServer(tls, onRequest) : createServer(onRequest);
  const listening = server;

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
    listening.once('error', onError);
    listening.listen(options.port, options.host, () => {
      listening.off('error', onError);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await web?.close();
    throw err;
  });
  listening.on('error', (err) => log.error({ err: err.message }, 'metrics server error'));
  const { port } = listening.address() as AddressInfo;
  // A wildcard bind is reached on the loopback address (the URL printed for people to open).
  const reachable = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  const host = reachable.includes(':') ? `[${reachable}]` : reachable;

  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    reloadWebConfig: async () => web?.reload(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => listening.closeAllConnections(), CLOSE_GRACE_MS);
        listening.close(() => {
          clearTimeout(force);
          resolve();
        });
        listening.closeIdleConnections();
      }).then(() => web?.close());
      return closing;
    },
  };
}

/** The basic-auth verdict on a request; a client that leaves while its check waits takes its check with it. */
function authorize(web: WebAccess, req: IncomingMessage, res: ServerResponse): Promise<AuthOutcome> {
  const left = new AbortController();
  res.once('close', () => left.abort());
  return web.authorize(req, left.signal);
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
