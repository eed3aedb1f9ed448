/**
 * Notices a Redis that lost its data (FLUSHALL, or a restart without persistence): a marker key
 * written once is found missing. The queue's keys come back by themselves (BullMQ creates them on the
 * next add, and the slots are fired by node-cron in this process, not kept in Redis); what does not
 * come back is the day's compute-unit spending, which `onEmptied` restores from the database.
 * Checked at start-up, on every reconnection and every `intervalMs`; one log line per loss.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../runtime/logger.js';

export interface RedisEpochOptions {
  redis: Redis;
  /** The collector's key prefix (`service.queuePrefix`). */
  prefix: string;
  log: Logger;
  /** What to recreate: called at start-up, and once per loss noticed. */
  onEmptied: () => Promise<void>;
  /** @defaultValue 10 s */
  intervalMs?: number;
}

export interface RedisEpoch {
  /** One check now (tests; the timer and reconnections call it too). */
  check(): Promise<void>;
  stop(): void;
}

export function watchRedisEpoch(o: RedisEpochOptions): RedisEpoch {
  const key = `${o.prefix}:epoch`;
  let started = false;
  let running: Promise<void> | undefined;

  async function checkOnce(): Promise<void> {
    // NX: of several processes noticing the loss at once, one recreates and logs.
    const created = await o.redis.set(key, new Date().toISOString(), 'NX');
    // The first check only marks the epoch: a key already there means this Redis kept its data.
    const first = !started;
    started = true;
    if (created !== 'OK') return;
    if (!first) {
      o.log.warn(
        { key },
        'Redis lost its data (flushed, or restarted without persistence): recreating today’s compute-unit spending from job_runs; the next slots run as scheduled',
      );
    }
    await o.onEmptied();
  }

  const check = (): Promise<void> => {
    running ??= checkOnce()
      .catch((err: Error) => o.log.debug({ err: err.message }, 'Redis epoch check failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const onReady = () => void check();
  o.redis.on('ready', onReady);
  if (o.redis.status === 'ready') void check();
  const timer = setInterval(() => void check(), o.intervalMs ?? 10_000);
  timer.unref();
  return {
    check,
    stop() {
      clearInterval(timer);
      o.redis.off('ready', onReady);
    },
  };
}
