import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { EPHEMERAL_REDIS_ARGS, type RedisProcess, spawnRedis } from './redis-process.js';
import type { TestCa } from './test-ca.js';

/** A free TCP port on loopback (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** Stops the server (SIGKILL: as a crash would). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: it keeps nothing on disk). */
  start(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port, for tests that stop or restart Redis (the shared
 * one on 6379 is never stopped). Nothing is kept on disk.
 */
export async function startPrivateRedis(
  options: { port?: number; start?: boolean } = {},
): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  let server: RedisProcess | undefined;
  const handle: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      server = await spawnRedis('redis-server', ['--port', String(port), ...EPHEMERAL_REDIS_ARGS], port);
    },
    async stop() {
      const s = server;
      server = undefined;
      await s?.kill();
    },
  };
  if (options.start ?? true) await handle.start();
  return handle;
}

/**
 * A redis-server of the test's own on a free port that listens only on TLS, `cert`/`key` its
 * certificate (the test CA's server one unless given), wanting a client certificate of the test CA
 * (Redis's default `tls-auth-clients yes`).
 */
export async function startTlsRedis(
  ca: TestCa,
  server: { cert: string; key: string } = { cert: ca.serverCert, key: ca.serverKey },
): Promise<RedisProcess> {
  const port = await freePort();
  return spawnRedis(
    'redis-server',
    [
      ...EPHEMERAL_REDIS_ARGS,
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      server.cert,
      '--tls-key-file',
      server.key,
      '--tls-ca-cert-file',
      ca.caFile,
    ],
    port,
    {
      tls: {
        ca: readFileSync(ca.caFile),
        cert: readFileSync(ca.clientCert),
        key: readFileSync(ca.clientKey),
        // The probe only waits for the server to listen (a test may give it a certificate of another name).
        checkServerIdentity: () => undefined,
      },
    },
  );
}
