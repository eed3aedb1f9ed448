import { untrustedCertificateHint } from '../config/client-tls.js';
import type { Config } from '../config/index.js';
import { maskQueueUrl } from '../config/queue.js';
import { redisSetting } from '../config/redis.js';
import type { Logger } from '../runtime/logger.js';
import type { QueueBackend } from './backend.js';

/** Connections of the collector's own pool: the shared state and the budget's limiter (a request at a time per active run). */
const POOL_SPARE = 2;

/**
 * The configured queue backend, opened. Redis connects in the background (an outage at start is logged
 * once and retried); PostgreSQL is migrated first (BullMQ's schema and the collector's tables), so an
 * unreachable database fails `start` at once with a message naming QUEUE_URL. Each backend's module
 * is imported when it is chosen: the other one's driver (pg, ~40 ms) is not loaded on every start.
 */
export async function openQueueBackend(
  config: Pick<Config, 'redis' | 'queue'> & {
    service: Pick<Config['service'], 'queuePrefix' | 'concurrency'>;
  },
  log: Logger,
  name: string,
  /** The service's backend: on PostgreSQL its clocks, schema and writability watched (postgres-watch.ts). */
  options: { watch?: boolean } = {},
): Promise<QueueBackend> {
  const q = config.queue;
  if (q.kind === 'redis') {
    const [{ connectRedis }, { redisBackend }] = await Promise.all([
      import('./redis.js'),
      import('./redis-backend.js'),
    ]);
    const setting = q.setting === 'QUEUE_URL' ? 'QUEUE_URL' : redisSetting(config.redis);
    return redisBackend(connectRedis(config.redis, log, name), config.service.queuePrefix, setting);
  }
  const { describePostgresError, migrateQueueSchema, postgresBackend, QueuePrefixCollisionError, queuePool } =
    await import('./postgres-backend.js');
  const pool = queuePool(q, { name, max: config.service.concurrency + POOL_SPARE });
  pool.on('error', () => undefined); // until the backend listens
  try {
    await migrateQueueSchema(pool, q, config.service.queuePrefix);
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof QueuePrefixCollisionError) throw err;
    // A CA that did not sign the server's certificate: which variable and file to check.
    const hint = untrustedCertificateHint(err, 'DATABASE_TLS_CA_FILE', q.tls?.caFile);
    throw new Error(
      `the queue's PostgreSQL at ${maskQueueUrl(q.url)} (QUEUE_URL) could not be set up in schema ${q.schema}: ${describePostgresError(err as Error)}${hint ? `: ${hint}` : ''}`,
      { cause: err },
    );
  }
  return postgresBackend(q, {
    log,
    pool,
    name,
    ...(options.watch && { watch: { prefix: config.service.queuePrefix } }),
  });
}
