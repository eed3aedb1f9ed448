/**
 * Where the queue lives: Redis (the default: `REDIS_URL`, or a `redis://`/`rediss://` QUEUE_URL) or
 * PostgreSQL through BullMQ's own backend (a `postgres://` QUEUE_URL), in a schema of its own so it
 * can share the store's database. The URL holds a password: print `printableQueue`, never the URL.
 */
import type { ConnectionOptions } from 'node:tls';
import * as z from 'zod';
import type { ClientTls } from './client-tls.js';
import { postgresSsl } from './database.js';
import { ConfigError } from './errors.js';
import { maskPasswordParameters, maskUrlPassword } from './url-password.js';

export type QueueConfig =
  | {
      kind: 'redis';
      /** The variable that named it: QUEUE_URL, or REDIS_URL (also when neither is set: its default). */
      setting: 'QUEUE_URL' | 'REDIS_URL';
    }
  | {
      kind: 'postgres';
      /** As given, password included: never print it. */
      url: string;
      /** The schema BullMQ's tables and the collector's shared state live in: `<queuePrefix>_queue`. */
      schema: string;
      setting: 'QUEUE_URL';
      /** DATABASE_TLS_*_FILE (the store's), read; undefined: TLS as the URL's `sslmode` says. */
      tls?: ClientTls | undefined;
      /** node-postgres's `ssl` built from `tls` and QUEUE_URL's sslmode (`postgresSsl`). */
      ssl?: ConnectionOptions | undefined;
    };

const QUEUE_URL_SCHEMES = /^(rediss?|postgres(ql)?):\/\//i;

export const queueEnvShape = {
  /**
   * The queue's backend: `redis://` or `rediss://` (as REDIS_URL), or `postgres://` for BullMQ's
   * PostgreSQL backend (no Redis needed). @defaultValue REDIS_URL
   */
  QUEUE_URL: z
    .string()
    .refine((text) => QUEUE_URL_SCHEMES.test(text) && URL.canParse(text), {
      error:
        'a redis://, rediss:// or postgres:// URL, e.g. redis://127.0.0.1:6379 or postgres://collector:secret@db.example.com:5432/glacier',
    })
    .optional(),
};

export const isRedisQueueUrl = (url: string): boolean => /^rediss?:\/\//i.test(url);

/**
 * The environment as the loader validates it, with a Redis QUEUE_URL in REDIS_URL's place (everything
 * that reaches Redis reads REDIS_URL). QUEUE_URL and REDIS_URL together are refused: one would be
 * ignored without a word.
 */
export function normalizeQueueEnv(
  present: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const queueUrl = present.QUEUE_URL;
  if (queueUrl === undefined) return present;
  if (present.REDIS_URL !== undefined) {
    throw new ConfigError(
      `Set QUEUE_URL or REDIS_URL, not both: QUEUE_URL = "${maskQueueUrl(queueUrl)}", REDIS_URL = "${maskQueueUrl(present.REDIS_URL)}"`,
    );
  }
  return isRedisQueueUrl(queueUrl) ? { ...present, REDIS_URL: queueUrl } : present;
}

/**
 * The queue backend of the validated environment; `queuePrefix` names the PostgreSQL schema, and
 * `databaseTls` gives the DATABASE_TLS_* files, read (asked only for a PostgreSQL queue).
 */
export function resolveQueue(
  e: { QUEUE_URL?: string | undefined },
  queuePrefix: string,
  databaseTls: () => ClientTls | undefined = () => undefined,
): QueueConfig {
  if (e.QUEUE_URL === undefined) return { kind: 'redis', setting: 'REDIS_URL' };
  if (isRedisQueueUrl(e.QUEUE_URL)) return { kind: 'redis', setting: 'QUEUE_URL' };
  const tls = databaseTls();
  return {
    kind: 'postgres',
    url: e.QUEUE_URL,
    schema: queueSchema(queuePrefix),
    setting: 'QUEUE_URL',
    ...(tls && { tls, ssl: postgresSsl(e.QUEUE_URL, tls, 'QUEUE_URL') }),
  };
}

/**
 * `service.queuePrefix` as a PostgreSQL schema name, `<prefix>_queue`: letters, digits and `_` (a `-`
 * becomes `_`, a Redis Cluster hash tag's braces are dropped, a leading digit gets a `_` before it).
 */
/** How a prefix becomes its schema, in words, for the messages that refuse a collision. */
export function describeSchemaMapping(): string {
  return 'letters, digits and "_" are kept, "-" and any other character become "_", braces are dropped, a leading digit gets a "_" before it, then "_queue" is appended';
}

export function queueSchema(queuePrefix: string): string {
  const base = queuePrefix.replace(/[{}]/g, '').replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(base) ? `${base}_queue` : `_${base}_queue`;
}

/** A queue URL with its password masked (whatever its scheme); text that is no URL, masked from the scheme to its last `@`. */
export function maskQueueUrl(url: string): string {
  return (
    maskUrlPassword(url) ??
    maskPasswordParameters(
      url.replace(
        /^([a-z][a-z0-9+.-]*:\/\/)?[^/]*@/i,
        (_m, scheme: string | undefined) => `${scheme ?? ''}***@`,
      ),
    )
  );
}

/** The backend in words, as `start` and `config check` print it: "PostgreSQL postgres://…, schema glacier_queue". */
export function describeQueueBackend(queue: QueueConfig, redisUrl: string): string {
  return queue.kind === 'postgres'
    ? `PostgreSQL ${maskQueueUrl(queue.url)} (QUEUE_URL), schema ${queue.schema}`
    : `Redis ${maskQueueUrl(redisUrl)} (${queue.setting})`;
}
