/**
 * `status` counts the queue with plain reads (src/queue/probe.ts: no BullMQ loaded, nothing
 * written): the counts must be BullMQ's own `getJobCounts`, whatever state the jobs are in.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { QUEUE_NAME } from '../../src/queue/jobs.js';
import { probeService } from '../../src/queue/probe.js';
import { deleteRedisPrefix, TEST_REDIS_URL } from '../support/queue.js';

const prefix = `glacier-test-counts-${process.pid}`;
afterEach(() => deleteRedisPrefix(TEST_REDIS_URL, prefix));

describe('status reads the queue counts', () => {
  it('as BullMQ counts them: waiting, active, delayed and failed jobs', async () => {
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUE_NAME, { connection, prefix });
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const worker = new Worker(
      QUEUE_NAME,
      async (job) => {
        if (job.name === 'fails') throw new Error('failed on purpose');
        await held;
      },
      { connection: connection.duplicate(), prefix, concurrency: 1, autorun: false },
    );
    try {
      await queue.add('fails', {}, { attempts: 1 });
      const failed = new Promise((r) => worker.once('failed', r));
      const active = new Promise<void>((r) =>
        worker.on('active', (job) => {
          if (job.name === 'holds') r();
        }),
      );
      worker.run();
      await failed;
      await queue.add('holds', {});
      await active;
      await queue.addBulk([1, 2, 3].map((i) => ({ name: 'waits', data: { i } })));
      await queue.add('later', {}, { delay: 3_600_000 });

      const probe = await probeService({
        redis: { kind: 'url', url: TEST_REDIS_URL },
        queue: { kind: 'redis', setting: 'REDIS_URL' },
        service: { queuePrefix: prefix },
      });
      const bullmq = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
      expect(probe.queue).toEqual(bullmq);
      expect(probe.queue).toEqual({ waiting: 3, active: 1, delayed: 1, failed: 1 });
    } finally {
      release();
      await worker.close();
      await queue.close();
      connection.disconnect();
    }
  });
});
