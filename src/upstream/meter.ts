import type { EndpointName } from './endpoints.js';

/**
 * Requests and compute units spent, per endpoint.
 *
 * The client records every attempt that got an HTTP status back (success, 4xx, 429 and 5xx alike),
 * each at its endpoint's full CU cost from endpoints.ts: the API charges retried requests too, and
 * counting a rejected one is the safe side of a budget. Attempts that never got a status (connection
 * refused or reset, attempt timeout) are not counted: whether the server saw them is unknown.
 */
export interface Meter {
  record(endpoint: EndpointName, computeUnits: number): void;
  snapshot(): MeterSnapshot;
}

export interface MeterSnapshot {
  requests: number;
  computeUnits: number;
  byEndpoint: Partial<Record<EndpointName, { requests: number; computeUnits: number }>>;
}

export function createMeter(): Meter {
  let requests = 0;
  let computeUnits = 0;
  const byEndpoint = new Map<EndpointName, { requests: number; computeUnits: number }>();
  return {
    record(endpoint, cu) {
      requests += 1;
      computeUnits += cu;
      const entry = byEndpoint.get(endpoint) ?? { requests: 0, computeUnits: 0 };
      entry.requests += 1;
      entry.computeUnits += cu;
      byEndpoint.set(endpoint, entry);
    },
    snapshot() {
      const copy: MeterSnapshot['byEndpoint'] = {};
      for (const [name, entry] of byEndpoint) copy[name] = { ...entry };
      return { requests, computeUnits, byEndpoint: copy };
    },
  };
}
