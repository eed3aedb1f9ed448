/**
 * The Data API client: one typed function per endpoint (see endpoints.ts), each validating its response.
 * Success is any 2xx: the upstream answers 201 for signatures and export creation and 200 elsewhere, and
 * a gateway answering 200 for a 201 endpoint (or the reverse) must not fail a job.
 */

import { Agent } from 'undici';
import * as z from 'zod';
import { type Clock, systemClock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { abortableSleep } from '../runtime/sleep.js';
import {
  type AutoRenewedCycle,
  type CurrentAutoRenewedCycle,
  listCyclesEnvelopeSchema,
} from './auto-renew.js';
import { clientDefaults, isHeaderSafe } from './defaults.js';
import { type Currency, type EndpointName, endpoints, type Network, pathOf } from './endpoints.js';
import type {
  ApiUsageGroupBy,
  ApiUsageTimeInterval,
  PrimaryNetworkRpcGroupBy,
  RequestType,
  RpcTimeInterval,
  SortOrder,
  SubnetRpcGroupBy,
  TransactionStatus,
} from './enums.js';
import { RecordRejectedError } from './errors.js';
import {
  type AttemptEvent,
  type CallContext,
  type ComputeUnitBudget,
  createMeter,
  createTransport,
  type Meter,
} from './http.js';
import { parseJsonLossless } from './json.js';
import type { Page } from './paginate.js';
import {
  checkRecords,
  DriftCollector,
  type Findings,
  findDrift,
  findingsOf,
  type RecordEndpoint,
  type RecordSpec,
  recordSpecs,
} from './records.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry.js';
import {
  type ApiUsageMetrics,
  apiUsageMetricsEnvelopeSchema,
  type CreateExportRequest,
  type HistoricalReward,
  listHistoricalRewardsEnvelopeSchema,
  listTransactionsEnvelopeSchema,
  type Operation,
  operationSchema,
  type PrimaryNetworkRpcUsageMetrics,
  primaryNetworkRpcUsageMetricsEnvelopeSchema,
  type SignatureResponse,
  type SubnetRpcUsageMetrics,
  type Supply,
  subnetRpcUsageMetricsEnvelopeSchema,
  supplySchema,
  type Transaction,
  type UsageBucket,
} from './schemas.js';
import {
  listPendingRewardsEnvelopeSchema,
  listValidatorDetailsEnvelopeSchema,
  type PendingReward,
  type Validator,
} from './staking-schemas.js';

/** An answer with what its checks found beside it: drift, and records set aside (absent when none). */
export type WithFindings<T> = T & { findings?: Findings | undefined };

export interface DataApiClientOptions {
  /** e.g. `https://data-api.avax.network`; a trailing slash is fine, a path prefix is kept. */
  baseUrl: string;
  /** Sent as `x-glacier-api-key`, only to the base URL's origin. Without it the upstream's lower limits apply. */
  apiKey?: string | undefined;
  /** @defaultValue `glacier-collector/<version>` */
  userAgent?: string;
  /** The collector's version, for the default user-agent. @defaultValue `unknown` */
  version?: string;
  /** Per attempt, headers and body, in ms. @defaultValue clientDefaults.attemptTimeoutMs (30 s) */
  attemptTimeoutMs?: number;
  /** Whole call including retries and waits, in ms. @defaultValue clientDefaults.callTimeoutMs (2 min) */
  callTimeoutMs?: number;
  /** Largest success body accepted, in bytes; a larger one is a malformed response. @defaultValue 32 MiB */
  maxBodyBytes?: number;
  /** Overrides of defaultRetryPolicy. */
  retry?: Partial<RetryPolicy>;
  /** @defaultValue systemClock */
  clock?: Clock;
  /** Waits between attempts; injectable so tests do not wait. Must reject with `signal.reason` on abort. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). @defaultValue Math.random */
  random?: () => number;
  /** @defaultValue one keep-alive undici Agent shared by every client of the process */
  dispatcher?: import('undici').Dispatcher;
  /** Where each attempt is logged (a retried failure as a warning, any other at debug). @defaultValue none */
  log?: Pick<Logger, 'warn' | 'debug'>;
  /** Called after every attempt (metrics). Must not throw. */
  onAttempt?: (e: AttemptEvent) => void;
  /** A compute-unit budget shared with other processes (the service's, in Redis). @defaultValue none */
  budget?: ComputeUnitBudget;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
}

export interface ListLatestTransactionsParams {
  network?: Network | undefined;
  status?: TransactionStatus | undefined;
  /** 1 to 100; the upstream defaults to 10. */
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/** At least one of `addresses` and `nodeIds` is required (checked before any request is sent). */
export interface ListHistoricalRewardsParams {
  network: Network;
  addresses?: readonly string[] | undefined;
  nodeIds?: readonly string[] | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
  sortOrder?: SortOrder | undefined;
  /** Currency of `historicalPrice`; the upstream defaults to usd. */
  currency?: Currency | undefined;
}

/** A node's validations: every status and subnet unless `validationStatus` narrows it. */
export interface ListValidatorDetailsParams {
  network: Network;
  nodeId: string;
  validationStatus?: 'active' | 'pending' | 'completed' | 'removed' | undefined;
  sortOrder?: SortOrder | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/** At least one of `addresses` and `nodeIds` is required (checked before any request is sent). */
export interface ListPendingRewardsParams {
  network: Network;
  addresses?: readonly string[] | undefined;
  nodeIds?: readonly string[] | undefined;
  sortOrder?: SortOrder | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/** GET /v1/networks/{network}/validators/{nodeId}/cycles (ACP-236; src/upstream/auto-renew.ts). */
export interface ListValidatorCyclesParams {
  network: Network;
  nodeId: string;
  /** One position only: its AddAutoRenewedValidatorTx. */
  txHash?: string | undefined;
  sortOrder?: SortOrder | undefined;
  /** 1..100, default 10 upstream. */
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/** A page of settled cycles; the cycle in flight (first page only) beside them. */
export interface CyclesPage extends Page<AutoRenewedCycle> {
  currentCycle?: CurrentAutoRenewedCycle | undefined;
}

/** Timestamps are Unix seconds, rounded down to 00:00 UTC by the upstream. */
export interface ApiUsageMetricsParams {
  orgId?: string | undefined;
  startTimestamp?: number | undefined;
  endTimestamp?: number | undefined;
  timeInterval?: ApiUsageTimeInterval | undefined;
  groupBy?: ApiUsageGroupBy | undefined;
  chainId?: string | undefined;
  responseCode?: string | undefined;
  requestType?: RequestType | undefined;
  apiKeyId?: string | undefined;
  requestPath?: string | undefined;
}

export interface PrimaryNetworkRpcUsageMetricsParams {
  network: Network;
  timeInterval?: RpcTimeInterval | undefined;
  startTimestamp?: number | undefined;
  endTimestamp?: number | undefined;
  groupBy?: PrimaryNetworkRpcGroupBy | undefined;
  responseCode?: string | undefined;
  requestPath?: string | undefined;
  /** ISO 3166-1 alpha-2; `XX` for no country data, `T1` for Tor. */
  country?: string | undefined;
  continent?: string | undefined;
  userAgent?: string | undefined;
  rpcMethod?: string | undefined;
}

export interface SubnetRpcUsageMetricsParams {
  chainId?: string | undefined;
  timeInterval?: RpcTimeInterval | undefined;
  startTimestamp?: number | undefined;
  endTimestamp?: number | undefined;
  groupBy?: SubnetRpcGroupBy | undefined;
  responseCode?: string | undefined;
  rpcMethod?: string | undefined;
  /** Redacted from AttemptEvent paths. */
  rlBypassApiToken?: string | undefined;
}

/**
 * Lists (transactions, rewards, usage buckets) are checked record by record (records.ts): the
 * answer's good records are returned, the others in its `findings`, with the drift seen (fields and
 * enum values the OpenAPI does not list). A broken envelope is an UpstreamResponseError, as before.
 */
export interface DataApiClient {
  getSupply(o?: CallOptions): Promise<WithFindings<Supply>>;
  listLatestTransactions(p?: ListLatestTransactionsParams, o?: CallOptions): Promise<Page<Transaction>>;
  listHistoricalRewards(p: ListHistoricalRewardsParams, o?: CallOptions): Promise<Page<HistoricalReward>>;
  getApiUsageMetrics(p?: ApiUsageMetricsParams, o?: CallOptions): Promise<WithFindings<ApiUsageMetrics>>;
  getPrimaryNetworkRpcUsageMetrics(
    p: PrimaryNetworkRpcUsageMetricsParams,
    o?: CallOptions,
  ): Promise<WithFindings<PrimaryNetworkRpcUsageMetrics>>;
  getSubnetRpcUsageMetrics(
    p?: SubnetRpcUsageMetricsParams,
    o?: CallOptions,
  ): Promise<WithFindings<SubnetRpcUsageMetrics>>;
  /** A signature that fails its schema is a RecordRejectedError, carrying it to be set aside. */
  getAggregatedSignatures(
    p: { network: Network; txHash: string },
    o?: CallOptions,
  ): Promise<WithFindings<SignatureResponse>>;
  createTransactionExport(body: CreateExportRequest, o?: CallOptions): Promise<WithFindings<Operation>>;
  getOperation(operationId: string, o?: CallOptions): Promise<WithFindings<Operation>>;
  /** GET /v1/networks/{network}/validators/{nodeId} (20 CU): a 404 is the node the API does not know. */
  listValidatorDetails(p: ListValidatorDetailsParams, o?: CallOptions): Promise<Page<Validator>>;
  /** GET /v1/networks/{network}/rewards:listPending (100 CU). */
  listPendingRewards(p: ListPendingRewardsParams, o?: CallOptions): Promise<Page<PendingReward>>;
  /**
   * GET /v1/networks/{network}/validators/{nodeId}/cycles (ACP-236, cost unpublished: counted as 20 CU):
   * settled cycles record by record (one that does not add up set aside), `currentCycle` on the first page.
   */
  listValidatorCycles(p: ListValidatorCyclesParams, o?: CallOptions): Promise<CyclesPage>;
  /**
   * A view of this client whose calls also count into `meter` and abort with `signal` (one per job run).
   * The view's `meter` is that meter (a fresh one if none is given); the parent's meters keep counting.
   */
  scoped(s: { meter?: Meter | undefined; signal?: AbortSignal | undefined }): DataApiClient;
  /** Lifetime totals of this client (of this view, for a scoped one). */
  readonly meter: Meter;
  /** The API base URL as configured (credentials included, if any: never print it unmasked). */
  readonly baseUrl: string;
  /** Closes the connection pool the client created (not a dispatcher it was given). Idempotent. */
  close(): Promise<void>;
}

/** The answer's own drift (its envelope's fields and enum values), as a collector to add records to. */
function envelopeDrift(schema: z.ZodType, envelope: unknown): DriftCollector {
  const drift = new DriftCollector();
  drift.nextRecord();
  findDrift(schema, envelope, '', drift);
  return drift;
}

/** An answer that is one object (supply, an operation): itself, with its drift. */
function single<T>(endpoint: EndpointName, schema: z.ZodType) {
  return (answer: T): WithFindings<T> => {
    const findings = findingsOf(endpoint, [], envelopeDrift(schema, answer));
    return findings ? { ...answer, findings } : (answer as WithFindings<T>);
  };
}

/** A page of a list: its good records and its findings. */
function pageOf<T>(
  endpoint: RecordEndpoint,
  envelopeSchema: z.ZodType,
  envelope: { nextPageToken?: string | undefined },
  list: readonly unknown[],
): Page<T> {
  const drift = envelopeDrift(envelopeSchema, envelope);
  const { items, rejected } = checkRecords(recordSpecs[endpoint] as RecordSpec<T>, list, drift);
  return { items, nextPageToken: envelope.nextPageToken, findings: findingsOf(endpoint, rejected, drift) };
}

/**
 * A usage answer: each value of each bucket is a record with its bucket's start; the answer keeps
 * the buckets in order with the values that passed (a bucket whose start is out of bounds keeps
 * none: each of its values is set aside).
 */
function usageOf<R extends { metrics: UsageBucket<unknown>[] }>(
  endpoint: 'apiUsageMetrics' | 'primaryNetworkRpcUsageMetrics' | 'subnetRpcUsageMetrics',
  envelopeSchema: z.ZodType,
  envelope: { metrics: { timestamp: unknown; values: unknown[] }[] },
): WithFindings<R> {
  type V = R['metrics'][number]['values'][number];
  const drift = envelopeDrift(envelopeSchema, envelope);
  const spec = recordSpecs[endpoint] as RecordSpec<{ timestamp: number; value: V }>;
  const records = envelope.metrics.flatMap((b) =>
    b.values.map((value) => ({ timestamp: b.timestamp, value })),
  );
  const { items, rejected } = checkRecords(spec, records, drift);
  const buckets = new Map<number, V[]>();
  for (const { timestamp, value } of items) {
    const values = buckets.get(timestamp);
    if (values) values.push(value);
    else buckets.set(timestamp, [value]);
  }
  const metrics = [...buckets].map(([timestamp, values]) => ({ timestamp, values }));
  const findings = findingsOf(endpoint, rejected, drift);
  return { ...envelope, metrics, ...(findings && { findings }) } as unknown as WithFindings<R>;
}

/** Any JSON object: a signature answer's envelope, the record itself checked apart. */
const anyObject = z.looseObject({});

export function createDataApiClient(options: DataApiClientOptions): DataApiClient {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch (err) {
    throw new TypeError('baseUrl must be an absolute http(s) URL', {
      cause: err,
    });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL, got protocol ${JSON.stringify(base.protocol)}`);
  }
  if (base.search || base.hash) {
    throw new TypeError(
      'baseUrl must have no query string or fragment: the client appends paths and queries',
    );
  }
  if (options.apiKey !== undefined && options.apiKey !== '' && !isHeaderSafe(options.apiKey)) {
    throw new TypeError('apiKey must consist of visible ASCII characters (value not shown)');
  }

  // Without a dispatcher the client owns a keep-alive pool of its own, closed by close().
  const ownAgent = options.dispatcher
    ? undefined
    : new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 32 });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= ownAgent ? ownAgent.close() : Promise.resolve();
    return closing;
  };
  const send = createTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey || undefined,
    userAgent: options.userAgent ?? `glacier-collector/${options.version ?? 'unknown'}`,
    attemptTimeoutMs: options.attemptTimeoutMs ?? clientDefaults.attemptTimeoutMs,
    callTimeoutMs: options.callTimeoutMs ?? clientDefaults.callTimeoutMs,
    maxBodyBytes: options.maxBodyBytes ?? clientDefaults.maxBodyBytes,
    retry: { ...defaultRetryPolicy, ...options.retry },
    clock: options.clock ?? systemClock,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    dispatcher: options.dispatcher ?? ownAgent!,
    log: options.log,
    onAttempt: options.onAttempt,
    budget: options.budget,
  });

  function view(meter: Meter, scope: CallContext): DataApiClient {
    const ctx = (o?: CallOptions): CallContext =>
      o?.signal ? { signals: [...scope.signals, o.signal], meters: scope.meters } : scope;

    return {
      meter,
      baseUrl: options.baseUrl,
      close,
      getSupply: (o) =>
        send({ endpoint: 'supply', schema: supplySchema }, ctx(o)).then(single('supply', supplySchema)),

      async listLatestTransactions(p = {}, o) {
        const { network, status, pageSize, pageToken } = p;
        const res = await send(
          {
            endpoint: 'transactions',
            query: { pageToken, pageSize, network, status },
            schema: listTransactionsEnvelopeSchema,
          },
          ctx(o),
        );
        return pageOf('transactions', listTransactionsEnvelopeSchema, res, res.transactions);
      },

      async listHistoricalRewards(p, o) {
        const addresses = p.addresses?.length ? p.addresses : undefined;
        const nodeIds = p.nodeIds?.length ? p.nodeIds : undefined;
        if (!addresses && !nodeIds) throw new TypeError('listHistoricalRewards needs addresses or nodeIds');
        const res = await send(
          {
            endpoint: 'rewards',
            params: { network: p.network },
            query: {
              addresses,
              nodeIds,
              pageToken: p.pageToken,
              pageSize: p.pageSize,
              sortOrder: p.sortOrder,
              currency: p.currency,
            },
            // historicalPrice.value is an amount typed as a JSON number: parse without floats.
            parseJson: parseJsonLossless,
            schema: listHistoricalRewardsEnvelopeSchema,
          },
          ctx(o),
        );
        return pageOf('rewards', listHistoricalRewardsEnvelopeSchema, res, res.historicalRewards);
      },

      getApiUsageMetrics: async (p = {}, o) =>
        usageOf<ApiUsageMetrics>(
          'apiUsageMetrics',
          apiUsageMetricsEnvelopeSchema,
          await send(
            {
              endpoint: 'apiUsageMetrics',
              query: { ...p },
              schema: apiUsageMetricsEnvelopeSchema,
            },
            ctx(o),
          ),
        ),

      getPrimaryNetworkRpcUsageMetrics: async (p, o) =>
        usageOf<PrimaryNetworkRpcUsageMetrics>(
          'primaryNetworkRpcUsageMetrics',
          primaryNetworkRpcUsageMetricsEnvelopeSchema,
          await send(
            {
              endpoint: 'primaryNetworkRpcUsageMetrics',
              query: { ...p },
              schema: primaryNetworkRpcUsageMetricsEnvelopeSchema,
            },
            ctx(o),
          ),
        ),

      getSubnetRpcUsageMetrics: async (p = {}, o) =>
        usageOf<SubnetRpcUsageMetrics>(
          'subnetRpcUsageMetrics',
          subnetRpcUsageMetricsEnvelopeSchema,
          await send(
            {
              endpoint: 'subnetRpcUsageMetrics',
              query: { ...p },
              schema: subnetRpcUsageMetricsEnvelopeSchema,
            },
            ctx(o),
          ),
        ),

      async getAggregatedSignatures(p, o) {
        const params = { network: p.network, txHash: p.txHash };
        const answer = await send({ endpoint: 'signatures', params, schema: anyObject }, ctx(o));
        const page = pageOf<SignatureResponse>('signatures', anyObject, {}, [answer]);
        const [record] = page.items;
        if (!record) {
          const { method, successStatus: status } = endpoints.signatures;
          const path = pathOf('signatures', params);
          throw new RecordRejectedError({ method, path, status, findings: page.findings! });
        }
        return page.findings ? { ...record, findings: page.findings } : record;
      },

      createTransactionExport: (body, o) =>
        send(
          {
            endpoint: 'createExport',
            body,
            schema: operationSchema,
          },
          ctx(o),
        ).then(single('createExport', operationSchema)),

      getOperation: (operationId, o) =>
        send({ endpoint: 'getOperation', params: { operationId }, schema: operationSchema }, ctx(o)).then(
          single('getOperation', operationSchema),
        ),

      async listValidatorDetails(p, o) {
        const res = await send(
          {
            endpoint: 'validatorDetails',
            params: { network: p.network, nodeId: p.nodeId },
            query: {
              validationStatus: p.validationStatus,
              sortOrder: p.sortOrder,
              pageSize: p.pageSize,
              pageToken: p.pageToken,
            },
            schema: listValidatorDetailsEnvelopeSchema,
          },
          ctx(o),
        );
        return pageOf('validatorDetails', listValidatorDetailsEnvelopeSchema, res, res.validators);
      },

      async listPendingRewards(p, o) {
        const addresses = p.addresses?.length ? p.addresses : undefined;
        const nodeIds = p.nodeIds?.length ? p.nodeIds : undefined;
        if (!addresses && !nodeIds) throw new TypeError('listPendingRewards needs addresses or nodeIds');
        const res = await send(
          {
            endpoint: 'pendingRewards',
            params: { network: p.network },
            query: {
              addresses,
              nodeIds,
              sortOrder: p.sortOrder,
              pageSize: p.pageSize,
              pageToken: p.pageToken,
            },
            schema: listPendingRewardsEnvelopeSchema,
          },
          ctx(o),
        );
        return pageOf('pendingRewards', listPendingRewardsEnvelopeSchema, res, res.pendingRewards);
      },

      async listValidatorCycles(p, o) {
        const res = await send(
          {
            endpoint: 'validatorCycles',
            params: { network: p.network, nodeId: p.nodeId },
            query: {
              txHash: p.txHash,
              sortOrder: p.sortOrder,
              pageSize: p.pageSize,
              pageToken: p.pageToken,
            },
            schema: listCyclesEnvelopeSchema,
          },
          ctx(o),
        );
        const page = pageOf<AutoRenewedCycle>('validatorCycles', listCyclesEnvelopeSchema, res, res.cycles);
        return res.currentCycle ? { ...page, currentCycle: res.currentCycle } : page;
      },

      scoped(s) {
        const scopedMeter = s.meter ?? createMeter();
        return view(scopedMeter, {
          signals: s.signal ? [...scope.signals, s.signal] : scope.signals,
          meters: [...scope.meters, scopedMeter],
        });
      },
    };
  }

  const lifetime = createMeter();
  return view(lifetime, { signals: [], meters: [lifetime] });
}
