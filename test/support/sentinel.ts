import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { EPHEMERAL_REDIS_ARGS, oneShotClient, type RedisProcess, spawnRedis } from './redis-process.js';
import { freePort } from './redis-server.js';
import { waitFor } from './service.js';
import { tempDir } from './tmp.js';

/**
 * A Redis Sentinel deployment of the test's own on loopback, from Debian's redis-server and
 * redis-sentinel: a master, one replica and three sentinels (quorum 2), each on a free port, nothing
 * kept on disk but the sentinels' config files (they rewrite them). The sentinels call the master
 * down after 1 s without an answer, so a killed master is replaced within seconds.
 */
export interface SentinelDeployment {
  master: string;
  /** The data servers, by port: the master first. */
  servers: RedisProcess[];
  sentinels: RedisProcess[];
  /** `host:port,…` for REDIS_SENTINELS. */
  sentinelList: string;
  /** The port the sentinels name as the master now (asked of the first that answers). */
  masterPort(): Promise<number | undefined>;
  stop(): Promise<void>;
}

const MASTER = 'mymaster';

function dataServer(port: number, replicaOf?: number): Promise<RedisProcess> {
  return spawnRedis(
    'redis-server',
    [
      '--port',
      String(port),
      ...EPHEMERAL_REDIS_ARGS,
      ...(replicaOf ? ['--replicaof', '127.0.0.1', String(replicaOf)] : []),
    ],
    port,
  );
}

async function ask<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T | undefined> {
  const r = oneShotClient(port);
  try {
    await r.connect();
    return await fn(r);
  } catch {
    return undefined;
  } finally {
    r.disconnect();
  }
}

export async function startSentinels(): Promise<SentinelDeployment> {
  const { dir, cleanup } = tempDir('glacier-sentinel-');
  const servers: RedisProcess[] = [];
  const sentinels: RedisProcess[] = [];
  const stop = async () => {
    for (const p of [...sentinels, ...servers]) await p.kill();
    cleanup();
  };
  try {
    const masterPort = await freePort();
    servers.push(await dataServer(masterPort));
    servers.push(await dataServer(await freePort(), masterPort));
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${MASTER} 1000`,
          `sentinel failover-timeout ${MASTER} 5000`,
          `sentinel parallel-syncs ${MASTER} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(await spawnRedis('redis-sentinel', [conf], port));
    }
    // Ready when the replica is in sync and every sentinel knows the replica and the two others
    // (a failover needs them to agree).
    await waitFor(
      async () => {
        const info = await ask(masterPort, (r) => r.info('replication'));
        if (!info || !/slave0:.*state=online/.test(info)) return false;
        for (const s of sentinels) {
          const known = await ask(s.port, async (r) => ({
            replicas: ((await r.call('SENTINEL', 'REPLICAS', MASTER)) as unknown[]).length,
            sentinels: ((await r.call('SENTINEL', 'SENTINELS', MASTER)) as unknown[]).length,
          }));
          if (!known || known.replicas < 1 || known.sentinels < 2) return false;
        }
        return true;
      },
      30_000,
      'the sentinels to know the replica and each other',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    master: MASTER,
    servers,
    sentinels,
    sentinelList: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    async masterPort() {
      for (const s of sentinels) {
        const addr = await ask(s.port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER));
        if (Array.isArray(addr) && addr[1] !== undefined) return Number(addr[1]);
      }
      return undefined;
    },
    stop,
  };
}
