/**
 * Shared set-up of the simulator tests: a simulator on an ephemeral port with a manual clock, and a
 * fetch wrapper that validates every JSON answer against the OpenAPI schema of its operation
 * (success bodies and error bodies alike), so no test can forget to.
 */
import { createManualClock, type ManualClock } from '../../../src/runtime/clock.js';
import { type SimulatorHandle, type SimulatorOptions, startSimulator } from '../../../src/simulator/index.js';
import { matchRoute } from '../../../src/simulator/router.js';
import { expectValidComponent, expectValidResponse } from '../../support/openapi.js';

/** 2025-06-02T12:00:00Z, a Monday. */
export const T0 = Date.UTC(2025, 5, 2, 12, 0, 0);
export const MAINNET_ADDRESS = 'avax1h2ccj9f5ay5acl6tyn9mwmw32p8wref8vl8ctg';
export const FUJI_ADDRESS = 'fuji12yufnu90fnfa86t7lrjcr40zejgdt8rj06pda8';
export const NODE_ID = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
export const TX_ID = '3P91K6nuDFvDodcRuJTsgdf9SvYe5pMiKk38HppsoeAiEztCP';

const open: SimulatorHandle[] = [];

export interface TestSim {
  sim: SimulatorHandle;
  clock: ManualClock;
}

export async function startTestSimulator(options: SimulatorOptions = {}, startMs = T0): Promise<TestSim> {
  const clock = createManualClock(startMs);
  const sim = await startSimulator({ port: 0, clock, ...options });
  open.push(sim);
  return { sim, clock };
}

/** For afterEach: closes every simulator the test started. */
export async function closeSimulators(): Promise<void> {
  await Promise.all(open.splice(0).map((sim) => sim.close()));
}

export interface ApiAnswer<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the answer is not JSON. */
  body: T;
}

/**
 * GETs (or sends `init`) to the simulator and parses the JSON answer. Every JSON body that parses is
 * checked against the OpenAPI schema of the matched operation and status; pass `validate: false` for
 * answers that are wrong on purpose (the malformed fault).
 */
// biome-ignore lint/suspicious/noExplicitAny: tests read bodies freely; the schema check guards the shape.
export async function api<T = any>(
  sim: SimulatorHandle,
  path: string,
  init: RequestInit & { apiKey?: string; validate?: boolean } = {},
): Promise<ApiAnswer<T>> {
  const { apiKey, validate = true, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (apiKey !== undefined) headers.set('x-glacier-api-key', apiKey);
  if (rest.body !== undefined) headers.set('content-type', 'application/json');
  const response = await fetch(sim.url + path, { ...rest, headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (validate && body !== undefined) {
    const match = matchRoute(rest.method ?? 'GET', path.split('?')[0] ?? path);
    if (match && match.route !== 'download') expectValidResponse(match.route, response.status, body);
    else if (response.status >= 400) expectValidComponent('NotFound', body);
  }
  return { status: response.status, headers: response.headers, text, body: body as T };
}

/** Asserts an error answer: its status, the `{ message, statusCode, error }` body, and a message fragment. */
export function expectError(answer: ApiAnswer, status: number, fragment?: string | RegExp): void {
  const phrases: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
  };
  const body = answer.body as { message: unknown; statusCode: unknown; error: unknown };
  if (answer.status !== status || body?.statusCode !== status || body.error !== phrases[status]) {
    throw new Error(`expected ${status}, got ${answer.status}: ${answer.text}`);
  }
  if (fragment !== undefined) {
    const message = Array.isArray(body.message) ? body.message.join(' | ') : String(body.message);
    const ok = typeof fragment === 'string' ? message.includes(fragment) : fragment.test(message);
    if (!ok) throw new Error(`expected message matching ${String(fragment)}, got: ${message}`);
  }
}

/** Minimal CSV parser (quoted fields, doubled quotes) for checking export files. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
