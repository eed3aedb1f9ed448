/**
 * The simulator of the Avalanche Data API: a local HTTP server that answers the nine endpoints of
 * the project with deterministic, live data, API keys and compute-unit rate limits, export
 * operations with downloadable CSV files, and injectable faults. See README.md beside this file.
 */
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../runtime/clock.js';
import type { TierName } from '../upstream/endpoints.js';
import { type ApiKeyConfig, createAuth } from './auth.js';
import type { SimContext } from './context.js';
import type { CsvColumnSpec, CsvDefect } from './csv.js';
import { createAutoRenewedSource, withAutoRenewedValidations } from './data/auto-renewed.js';
import { createRewardSource, isRewardKey } from './data/rewards.js';
import { createSupplySource } from './data/supply.js';
import { createTransactionSource, isTxPosition } from './data/transactions.js';
import { createValidatorSource } from './data/validators.js';
import { createOperationStore, type ExportSettings } from './exports.js';
import { createFaultEngine } from './fault-engine.js';
import { type FaultConfig, loadFaultConfig } from './faults.js';
import { createServedLog, type ServedLog, type SimRequestLog } from './logs.js';
import { createTokenCodec } from './pagination.js';
import { createSimServer } from './server.js';
import { createGroundTruth, type GroundTruth } from './truth.js';

export interface SimulatorOptions {
  /** @defaultValue 4010; 0 = an ephemeral port */
  port?: number;
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** Seed of every generated value. @defaultValue 1 */
  seed?: number;
  /** All time (data, token expiry, export state, rate-limit windows) reads it. @defaultValue systemClock */
  clock?: Clock;
  /** New EVM transactions per minute of clock time, per network (across its chains). @defaultValue 60 */
  txPerMinute?: number;
  /** Transactions that already exist, per network, at the epoch. @defaultValue 1000 */
  initialTransactions?: number;
  /**
   * The instant the data set is anchored to (ms): the initial transactions end there and reward
   * histories start two years before it. @defaultValue clock.now() at start, rounded down to the UTC hour
   */
  epochMs?: number;
  /** Lifetime of page tokens, ms. @defaultValue 24 h */
  pageTokenTtlMs?: number;
  /** Valid API keys. If absent, any key (tier Free) or none (tier none) is accepted. */
  apiKeys?: Record<string, { tier?: TierName; orgIds?: string[]; computeUnitsPerMinute?: number }>;
  /** Refuse keyless requests with 401. @defaultValue false (no key = the 'none' tier) */
  requireApiKey?: boolean;
  /**
   * Export operations: runningMs @defaultValue 5000, maxRangeDays @defaultValue 31, rowsPerDay
   * @defaultValue 500; bytesPerSecond: a download's pace @defaultValue unlimited; fileColumns: the
   * files' header and columns (another layout than the simulator's own, as a real export may have);
   * fileDefect: a defect in every file.
   */
  exports?: {
    runningMs?: number;
    maxRangeDays?: number;
    rowsPerDay?: number;
    bytesPerSecond?: number;
    fileColumns?: readonly CsvColumnSpec[];
    fileDefect?: CsvDefect;
  };
  faults?: FaultConfig;
  /**
   * Validators: `shortNodes` gives those node ids validations of `periodSeconds` each, back to back
   * from the epoch, so that one ends during a demo or a test (the others last 14 to 90 days).
   */
  validators?: { shortNodes?: { nodeIds: readonly string[]; periodSeconds: number } };
  /** Base of downloadUrl. @defaultValue the server's own URL */
  publicUrl?: string;
  /**
   * Entries kept in each array of `requests` and `served` (oldest dropped first); 0 keeps none.
   * @defaultValue 100000 (0 from the `simulator` command, whose logs nobody can read)
   */
  logLimit?: number;
  /** Unexpected errors of handlers (answered 500). @defaultValue ignore */
  onError?: (error: unknown) => void;
}

export interface SimulatorHandle {
  /** e.g. http://127.0.0.1:54321 (no trailing slash). */
  url: string;
  /** Closes the server and every open connection. */
  close(): Promise<void>;
  /** Replaces the faults at run time; plans restart and RNG streams reseed. */
  setFaults(faults: FaultConfig): void;
  /** Every request received, in order. */
  requests: SimRequestLog[];
  /** The success bodies sent (before fault mutation). */
  served: ServedLog;
  /** Deterministic views of the data at clock.now(). */
  truth: GroundTruth;
  /** How much the simulator holds now: everything it keeps between requests, each bounded. */
  state(): SimulatorState;
}

/**
 * Everything a simulator keeps between requests, counted. The data itself is not here: it is a pure
 * function of seed and clock, built per page; page tokens carry their own position (pagination.ts).
 * Each count has a bound, whatever the clock reads.
 */
export interface SimulatorState {
  /** Entries of `requests`: at most logLimit (+10% slack). */
  requests: number;
  /** Entries of all `served` arrays together: at most 7 × logLimit (+10% slack). */
  served: number;
  /** Export operations: those created in the last 7 days of clock time, at most 10000. */
  operations: number;
  /** API keys whose budget is tracked (plus the keyless bucket): at most 10000. */
  apiKeys: number;
}

const HOUR_MS = 3_600_000;

/**
 * The Node.js options a simulator process runs with (compose's `simulator` service, the tests' and
 * benchmarks' simulator process): V8's young generation pinned small. By default V8 grows it from 1 to
 * 16 MiB per semi-space as the request rate asks, a step of about 30 MiB of RSS that comes hours later
 * at a low rate and reads as a creep; at 2 MiB the RSS is a flat line about 25 MiB lower, at no
 * measurable cost in requests served (docs/development.md, "The soak").
 */
export const SIMULATOR_NODE_OPTIONS = '--max-semi-space-size=2';

function positive(name: string, value: number, allowZero = false): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new Error(
      `Simulator option ${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${value}`,
    );
  }
  return value;
}

function exportSettings(options: SimulatorOptions['exports']): ExportSettings {
  return {
    runningMs: positive('exports.runningMs', options?.runningMs ?? 5_000, true),
    maxRangeDays: Math.floor(positive('exports.maxRangeDays', options?.maxRangeDays ?? 31)),
    rowsPerDay: Math.floor(positive('exports.rowsPerDay', options?.rowsPerDay ?? 500)),
    bytesPerSecond:
      options?.bytesPerSecond === undefined
        ? undefined
        : positive('exports.bytesPerSecond', options.bytesPerSecond),
    fileColumns: options?.fileColumns,
    fileDefect: options?.fileDefect,
  };
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const seed = options.seed ?? 1;
  const clock = options.clock ?? systemClock;
  const epochMs = options.epochMs ?? Math.floor(clock.now() / HOUR_MS) * HOUR_MS;
  const host = options.host ?? '127.0.0.1';
  const settings = exportSettings(options.exports);
  const ttlMs = positive('pageTokenTtlMs', options.pageTokenTtlMs ?? 24 * HOUR_MS);
  let url = '';
  const autoRenewed = createAutoRenewedSource({ seed, now: () => clock.now(), epochMs });
  const ctx: SimContext = {
    seed,
    clock,
    transactions: createTransactionSource({
      seed,
      clock,
      txPerMinute: positive('txPerMinute', options.txPerMinute ?? 60),
      initialTransactions: Math.floor(
        positive('initialTransactions', options.initialTransactions ?? 1000, true),
      ),
      epochMs,
    }),
    rewards: createRewardSource({ seed, now: () => clock.now(), epochMs }),
    supply: createSupplySource({ seed }),
    operations: createOperationStore({ clock, settings }),
    exportSettings: settings,
    txTokens: createTokenCodec({ seed, clock, ttlMs, isPosition: isTxPosition }),
    rewardTokens: createTokenCodec({ seed, clock, ttlMs, isPosition: isRewardKey }),
    // A node's auto-renewed positions (ACP-236, Fuji) are validations too, with their autoRenew.
    validators: withAutoRenewedValidations(
      createValidatorSource({
        seed,
        now: () => clock.now(),
        epochMs,
        shortNodes: options.validators?.shortNodes,
      }),
      autoRenewed,
    ),
    validatorTokens: createTokenCodec({ seed, clock, ttlMs, isPosition: isTxPosition }),
    autoRenewed,
    publicUrl: () => (options.publicUrl ?? url).replace(/\/+$/, ''),
  };
  const faults = createFaultEngine(options.faults, seed);
  const auth = createAuth({ clock, seed, apiKeys: options.apiKeys, requireApiKey: options.requireApiKey });
  const requests: SimRequestLog[] = [];
  const served = createServedLog();
  const sim = createSimServer({
    ctx,
    auth,
    faults,
    requests,
    served,
    logLimit: options.logLimit ?? 100_000,
    onError: options.onError,
  });

  await new Promise<void>((resolve, reject) => {
    sim.server.once('error', reject);
    sim.server.listen(options.port ?? 4010, host, () => {
      sim.server.off('error', reject);
      resolve();
    });
  });
  const address = sim.server.address() as AddressInfo;
  const shownHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  url = `http://${shownHost}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    close: () => {
      closed ??= sim.close();
      return closed;
    },
    setFaults: (next) => faults.replace(next),
    requests,
    served,
    truth: createGroundTruth(ctx),
    state: () => ({
      requests: requests.length,
      served: Object.values(served).reduce((sum: number, list: unknown[]) => sum + list.length, 0),
      operations: ctx.operations.size(),
      apiKeys: auth.size(),
    }),
  };
}

/** Options from the CLI flags `--port --seed --faults` (strings as commander passes them). */
export async function simulatorOptionsFromFlags(flags: {
  port?: string | number;
  host?: string;
  seed?: string | number;
  faults?: string;
  publicUrl?: string;
}): Promise<SimulatorOptions> {
  // A process of its own (the compose stack, a demo left running): nobody in-process reads its logs.
  const options: SimulatorOptions = { logLimit: 0 };
  const integer = (name: string, raw: string | number, min: number, max: number): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`--${name} must be an integer from ${min} to ${max}, got '${raw}'`);
    }
    return value;
  };
  if (flags.port !== undefined) options.port = integer('port', flags.port, 0, 65_535);
  if (flags.seed !== undefined) options.seed = integer('seed', flags.seed, 0, 2 ** 32 - 1);
  if (flags.host !== undefined) options.host = flags.host;
  if (flags.faults !== undefined) options.faults = await loadFaultConfig(flags.faults);
  if (flags.publicUrl !== undefined) {
    if (!URL.canParse(flags.publicUrl) || !/^https?:$/.test(new URL(flags.publicUrl).protocol)) {
      throw new Error(`--public-url must be an http(s) URL, got '${flags.publicUrl}'`);
    }
    options.publicUrl = flags.publicUrl;
  }
  return options;
}

export type { EndpointFaults, FaultConfig, FaultEndpoint, FaultStep, SignatureStep } from './faults.js';
export { loadFaultConfig, parseFaultConfig } from './faults.js';
export type { ServedLog, SimRequestLog } from './logs.js';
export type { GroundTruth } from './truth.js';
export type * from './types.js';
export type { ApiKeyConfig };
