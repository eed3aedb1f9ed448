import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.js';

/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary directory, on a free port), for tests
 * that stop the server: the shared one on 5432 is never stopped. Runs the server binaries as user
 * `postgres` when the tests run as root (initdb refuses root). Undefined when no binaries are found.
 */
export interface PrivatePostgres {
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(base, v, 'bin')).find((d) => existsSync(join(d, 'pg_ctl')));
}

/** TLS for a private cluster: its certificate and key, and the CA its clients' certificates must have. */
export interface PrivatePostgresTls {
  certFile: string;
  keyFile: string;
  caFile: string;
}

/**
 * `tls`: `ssl=on`, and only TLS connections with a client certificate the CA signed are accepted
 * (`hostssl … clientcert=verify-ca`).
 */
export async function startPrivatePostgres(
  options: { tls?: PrivatePostgresTls } = {},
): Promise<PrivatePostgres | undefined> {
  const bin = binDir();
  if (!bin) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'glacier-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const asPostgres = (cmd: string, args: string[]) => {
    const root = process.getuid?.() === 0;
    execFileSync(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, {
      stdio: 'pipe',
    });
  };
  asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  let serverOptions = '';
  if (options.tls) {
    // The server reads its key only when no one else can (0600, owned by the user it runs as).
    for (const [from, to] of [
      [options.tls.certFile, 'server.crt'],
      [options.tls.keyFile, 'server.key'],
      [options.tls.caFile, 'ca.crt'],
    ] as const) {
      asPostgres('cp', [from, join(data, to)]);
    }
    asPostgres('chmod', ['600', join(data, 'server.key')]);
    asPostgres('sh', [
      '-c',
      `printf 'local all all trust\nhostssl all all 127.0.0.1/32 trust clientcert=verify-ca\n' > ${join(data, 'pg_hba.conf')}`,
    ]);
    serverOptions = ' -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key -c ssl_ca_file=ca.crt';
  }
  const pg: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      asPostgres(join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-w',
        '-l',
        join(dir, 'log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${serverOptions}`,
        'start',
      ]);
    },
    /** An immediate stop: as a crash of the server would (open transactions are lost). */
    stop() {
      asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    destroy() {
      try {
        pg.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  pg.start();
  return pg;
}
