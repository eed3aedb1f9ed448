/**
 * Decides, request by request, which fault (if any) an answer suffers. Deterministic: each endpoint
 * has its own RNG stream seeded from the fault seed, and every request takes the same number of draws
 * whatever the outcome, so a run replays identically for the same sequence of requests.
 */

import type { EndpointFaults, FaultConfig, FaultEndpoint, FaultStep, SignatureStep } from './faults.js';
import { hashString, mulberry32, type Rng } from './ids.js';

export type FaultAction =
  | 'none'
  | 'reset'
  | 'status'
  | 'truncate'
  | 'malformed'
  | 'extraFields'
  | 'badRecord'
  | 'drift';

export interface FaultDecision {
  action: FaultAction;
  latencyMs: number;
  status?: number;
  retryAfterSeconds?: number;
  /** What the request log records, e.g. `plan:503`, `rate:reset`; undefined when no fault. */
  label?: string;
}

export interface FaultEngine {
  decide(endpoint: FaultEndpoint): FaultDecision;
  /** The configured answer for the next request of this transaction's signature, if any. */
  signatureAnswer(txHash: string): SignatureStep | undefined;
  replace(config: FaultConfig): void;
}

interface EndpointState {
  rng: Rng;
  planIndex: number;
  burstRemaining: number;
}

const DEFAULT_ERROR_STATUSES = [500, 502, 503];
const NO_FAULT: FaultDecision = { action: 'none', latencyMs: 0 };

export function createFaultEngine(initial: FaultConfig | undefined, fallbackSeed: number): FaultEngine {
  let config: FaultConfig = initial ?? {};
  let states = new Map<FaultEndpoint, EndpointState>();
  // Requests seen per configured txHash; only hashes of the configuration are counted (bounded).
  let signatureCounts = new Map<string, number>();

  function settings(endpoint: FaultEndpoint): EndpointFaults {
    return { ...config.all, ...config.endpoints?.[endpoint] };
  }

  function state(endpoint: FaultEndpoint): EndpointState {
    let s = states.get(endpoint);
    if (!s) {
      s = {
        rng: mulberry32((config.seed ?? fallbackSeed) ^ hashString(endpoint)),
        planIndex: 0,
        burstRemaining: 0,
      };
      states.set(endpoint, s);
    }
    return s;
  }

  function fromStep(step: FaultStep, latencyMs: number): FaultDecision {
    if ('status' in step) {
      return {
        action: 'status',
        latencyMs,
        status: step.status,
        retryAfterSeconds: step.retryAfterSeconds ?? 1,
        label: `plan:${step.status}`,
      };
    }
    if ('kind' in step) {
      return step.kind === 'ok'
        ? { action: 'none', latencyMs, label: 'plan:ok' }
        : { action: step.kind, latencyMs, label: `plan:${step.kind}` };
    }
    return { action: 'none', latencyMs: step.latencyMs, label: `plan:latency` };
  }

  return {
    replace(next) {
      config = next;
      states = new Map();
      signatureCounts = new Map();
    },
    signatureAnswer(txHash) {
      const steps =
        config.signatures && Object.hasOwn(config.signatures, txHash) ? config.signatures[txHash] : undefined;
      if (!steps || steps.length === 0) return undefined;
      const seen = signatureCounts.get(txHash) ?? 0;
      signatureCounts.set(txHash, seen + 1);
      return steps[Math.min(seen, steps.length - 1)];
    },
    decide(endpoint) {
      const f = settings(endpoint);
      const s = state(endpoint);
      const [dReset, dLimit, dError, dStatus, dLatency, dBody] = [
        s.rng(),
        s.rng(),
        s.rng(),
        s.rng(),
        s.rng(),
        s.rng(),
      ];
      const range = f.latencyMs;
      const latencyMs =
        range === undefined
          ? 0
          : typeof range === 'number'
            ? range
            : range[0] + Math.floor(dLatency * (range[1] - range[0] + 1));

      const step = f.plan?.[s.planIndex];
      if (step) {
        s.planIndex++;
        return fromStep(step, 'latencyMs' in step ? step.latencyMs : latencyMs);
      }
      const retryAfterSeconds = f.retryAfterSeconds ?? 1;
      if (s.burstRemaining > 0) {
        s.burstRemaining--;
        return { action: 'status', latencyMs, status: 429, retryAfterSeconds, label: 'rate:429' };
      }
      if (dReset < (f.resetRate ?? 0)) return { action: 'reset', latencyMs, label: 'rate:reset' };
      if (dLimit < (f.rateLimitRate ?? 0)) {
        s.burstRemaining = (f.rateLimitBurst ?? 3) - 1;
        return { action: 'status', latencyMs, status: 429, retryAfterSeconds, label: 'rate:429' };
      }
      if (dError < (f.errorRate ?? 0)) {
        const statuses = f.errorStatuses ?? DEFAULT_ERROR_STATUSES;
        const status = statuses[Math.floor(dStatus * statuses.length)] ?? 500;
        return { action: 'status', latencyMs, status, retryAfterSeconds, label: `rate:${status}` };
      }
      const truncate = f.truncateRate ?? 0;
      const malformed = truncate + (f.malformedRate ?? 0);
      const extra = malformed + (f.extraFieldsRate ?? 0);
      const badRecord = extra + (f.badRecordRate ?? 0);
      const drift = badRecord + (f.driftRate ?? 0);
      if (dBody < truncate) return { action: 'truncate', latencyMs, label: 'rate:truncate' };
      if (dBody < malformed) return { action: 'malformed', latencyMs, label: 'rate:malformed' };
      if (dBody < extra) return { action: 'extraFields', latencyMs, label: 'rate:extraFields' };
      if (dBody < badRecord) return { action: 'badRecord', latencyMs, label: 'rate:badRecord' };
      if (dBody < drift) return { action: 'drift', latencyMs, label: 'rate:drift' };
      return latencyMs > 0 ? { ...NO_FAULT, latencyMs } : NO_FAULT;
    },
  };
}
