import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';

export interface ReadyReport {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string }>;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  log: Logger;
  readiness: () => Promise<ReadyReport>;
  /** Further routes (`/metrics`), answered before the 404. */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void> | void>;
}

export interface HttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `/healthz` (the process answers), `/readyz` (every check, 503 when one fails), and the given routes. */
export async function startHttpServer(o: HttpServerOptions): Promise<HttpServer> {
  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(res.req.method === 'HEAD' ? undefined : text);
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method not allowed' });
    const handle = async () => {
      if (path === '/healthz') return json(res, 200, { status: 'ok' });
      if (path === '/readyz') {
        const report = await o.readiness();
        return json(res, report.ready ? 200 : 503, report);
      }
      const route = o.routes?.[path];
      if (route) return route(req, res);
      return json(res, 404, {
        error: 'not found',
        routes: ['/healthz', '/readyz', ...Object.keys(o.routes ?? {})],
      });
    };
    handle().catch((err: Error) => {
      o.log.error({ err: err.message, path }, 'http handler failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
