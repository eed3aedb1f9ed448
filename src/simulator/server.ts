/**
 * The HTTP server: plain node:http with keep-alive, no framework, so serving a page costs little next
 * to what a collector does with it. One request goes: route → fault decision (latency, reset, injected
 * status) → API key → compute-unit budget → handler → body faults → answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pipeline, Transform } from 'node:stream';
import { endpoints } from '../upstream/endpoints.js';
import type { Auth } from './auth.js';
import type { RouteResult, SimContext } from './context.js';
import { type CsvMutation, createCsvStream } from './csv.js';
import { addExtraFields, driftBody, malformBody, spoilOneRecord, truncateJson } from './fault-body.js';
import type { FaultDecision, FaultEngine } from './fault-engine.js';
import { HttpError, reasonPhrase } from './http.js';
import { type ServedLog, type SimRequestLog, trimLog, trimServed } from './logs.js';
import { matchRoute } from './router.js';
import { handlers } from './routes/index.js';

export interface SimServerDeps {
  ctx: SimContext;
  auth: Auth;
  faults: FaultEngine;
  requests: SimRequestLog[];
  served: ServedLog;
  /** Entries kept per log array. */
  logLimit: number;
  /** Called with unexpected handler errors (they answer 500). */
  onError?: (error: unknown) => void;
}

export interface SimServer {
  server: Server;
  close(): Promise<void>;
}

const API_KEY_HEADER = 'x-glacier-api-key';
const MAX_BODY_BYTES = 1 << 20;
const NO_FAULT: FaultDecision = { action: 'none', latencyMs: 0 };

function parseQuery(search: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    // A repeated parameter reads as the comma-separated list the API expects.
    query[key] = Object.hasOwn(query, key) ? `${query[key]},${value}` : value;
  }
  return query;
}

/** The raw body, or undefined when it exceeds MAX_BODY_BYTES (the rest is drained). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function createSimServer(deps: SimServerDeps): SimServer {
  const { ctx, auth, faults } = deps;
  const sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let closing = false;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          sleepers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      sleepers.add(entry);
    });
  }

  function sendJson(
    res: ServerResponse,
    status: number,
    payload: string,
    headers: Record<string, string>,
  ): void {
    res.writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(payload)),
    });
    res.end(payload);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const cut = url.indexOf('?');
    const path = cut < 0 ? url : url.slice(0, cut);
    const query = parseQuery(cut < 0 ? '' : url.slice(cut + 1));
    const match = matchRoute(method, path);
    const header = req.headers[API_KEY_HEADER];
    const apiKey = Array.isArray(header) ? header[0] : header;
    const hadApiKey = apiKey !== undefined && apiKey !== '';
    const entry: SimRequestLog = {
      method,
      path,
      query,
      endpoint: match?.route ?? 'unknown',
      status: 0,
      hadApiKey,
      at: ctx.clock.now(),
    };
    deps.requests.push(entry);
    trimLog(deps.requests, deps.logLimit);

    let rawBody: string | undefined = '';
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') rawBody = await readBody(req);
    else req.resume();

    const decision = match ? faults.decide(match.route) : NO_FAULT;
    if (decision.label) entry.fault = decision.label;
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    if (closing) {
      res.destroy();
      return;
    }
    if (decision.action === 'reset') {
      req.socket.destroy();
      return;
    }

    const identity = auth.identify(apiKey);
    const sendError = (
      status: number,
      message: string | string[],
      extra: Record<string, string> = {},
    ): void => {
      entry.status = status;
      const headers = hadApiKey ? { ...auth.headers(identity.account), ...extra } : extra;
      sendJson(
        res,
        status,
        JSON.stringify({ message, statusCode: status, error: reasonPhrase(status) }),
        headers,
      );
    };

    if (decision.action === 'status') {
      const status = decision.status ?? 500;
      const wait = String(decision.retryAfterSeconds ?? 1);
      const extra: Record<string, string> =
        status === 429 ? { 'retry-after': wait, 'ratelimit-reset': wait } : {};
      return sendError(status, `${reasonPhrase(status)} (injected fault)`, extra);
    }
    if (!match) return sendError(404, `Cannot ${method} ${path}`);
    if (match.route !== 'download') {
      if (identity.kind === 'missing') return sendError(401, `An API key is required (${API_KEY_HEADER})`);
      if (identity.kind === 'unknown') return sendError(401, 'Invalid API key');
      const charge = auth.charge(identity.account, endpoints[match.route].computeUnits);
      if (!charge.ok) {
        const wait = String(charge.resetSeconds);
        return sendError(429, `Rate limit exceeded: ${identity.account.perMinute} compute units per minute`, {
          'retry-after': wait,
          'ratelimit-reset': wait,
        });
      }
    }
    const perHash =
      match.route === 'signatures' ? faults.signatureAnswer(match.params['txHash'] ?? '') : undefined;
    if (perHash && 'status' in perHash) {
      entry.fault = `hash:${perHash.status}`;
      if (!('text' in perHash))
        return sendError(perHash.status, perHash.message ?? reasonPhrase(perHash.status));
      entry.status = perHash.status;
      res.writeHead(perHash.status, {
        ...(hadApiKey ? auth.headers(identity.account) : {}),
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(Buffer.byteLength(perHash.text)),
      });
      res.end(perHash.text);
      return;
    }
    if (rawBody === undefined) return sendError(413, 'Request body too large');
    let body: unknown;
    if (rawBody !== '') {
      try {
        body = JSON.parse(rawBody);
      } catch (error) {
        return sendError(400, `Malformed JSON body: ${(error as Error).message}`);
      }
    }

    let result: RouteResult;
    try {
      result = handlers[match.route](ctx, { params: match.params, query, body, account: identity.account });
    } catch (error) {
      if (error instanceof HttpError)
        return sendError(error.status, error.body.message, { ...error.headers });
      deps.onError?.(error);
      return sendError(500, 'Internal server error');
    }
    const headers = hadApiKey ? auth.headers(identity.account) : {};
    entry.status = result.kind === 'json' ? result.status : 200;
    if (result.kind === 'csv') return sendCsv(res, result, decision, headers);

    let payload: string;
    switch (decision.action) {
      case 'truncate':
        payload = truncateJson(JSON.stringify(result.body));
        break;
      case 'malformed':
        payload = JSON.stringify(malformBody(result.body));
        break;
      case 'extraFields':
        payload = JSON.stringify(addExtraFields(result.body));
        break;
      case 'badRecord':
        payload = JSON.stringify(spoilOneRecord(result.body, match.route));
        break;
      case 'drift':
        payload = JSON.stringify(driftBody(result.body, match.route));
        break;
      case 'none':
        payload = JSON.stringify(result.body);
        break;
      default: {
        const never: never = decision.action;
        throw new Error(`unknown fault action ${String(never)}`);
      }
    }
    if (result.record && (decision.action === 'none' || decision.action === 'extraFields')) {
      result.record(deps.served);
      trimServed(deps.served, deps.logLimit);
    }
    sendJson(res, result.status, payload, headers);
  }

  function sendCsv(
    res: ServerResponse,
    result: Extract<RouteResult, { kind: 'csv' }>,
    decision: FaultDecision,
    headers: Record<string, string>,
  ): void {
    const { record } = result.range;
    const mutation: CsvMutation =
      decision.action === 'none' || decision.action === 'status' || decision.action === 'reset'
        ? 'none'
        : decision.action;
    // No content-length: the file is produced while it is sent (chunked transfer encoding).
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${record.id}.csv"`,
    });
    const stream = createCsvStream({
      seed: ctx.seed,
      range: result.range,
      rowsPerDay: ctx.exportSettings.rowsPerDay,
      columns: ctx.exportSettings.fileColumns,
      defect: ctx.exportSettings.fileDefect,
      mutation,
      onEnd: (bytes) => {
        if (mutation !== 'none' && mutation !== 'extraFields') return;
        if (ctx.exportSettings.fileDefect) return;
        deps.served.downloads.push({ operationId: record.id, bytes });
        trimLog(deps.served.downloads, deps.logLimit);
      },
    });
    if (mutation === 'truncate') {
      // Half the file, then the connection drops without the final chunk: the client sees an aborted body.
      stream.pipe(res, { end: false });
      stream.on('end', () => res.destroy());
      return;
    }
    const done = () => {
      // A client that goes away mid-file is not an error of the simulator.
    };
    const pace = ctx.exportSettings.bytesPerSecond;
    if (pace === undefined) pipeline(stream, res, done);
    else pipeline(stream, paced(pace), res, done);
  }

  /**
   * Passes each chunk on, then waits as long as `bytesPerSecond` gives its size: a slow link. The
   * server's `sleep`, so that `close()` ends a wait in progress.
   */
  function paced(bytesPerSecond: number): Transform {
    return new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        this.push(chunk);
        sleep((chunk.length / bytesPerSecond) * 1000).then(() => callback());
      },
    });
  }

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      deps.onError?.(error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(
          JSON.stringify({ message: 'Internal server error', statusCode: 500, error: reasonPhrase(500) }),
        );
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 10_000;

  return {
    server,
    close() {
      closing = true;
      for (const sleeper of sleepers) {
        clearTimeout(sleeper.timer);
        sleeper.resolve();
      }
      sleepers.clear();
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
