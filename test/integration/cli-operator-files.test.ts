/**
 * The files an operator names (the config file, METRICS_WEB_CONFIG, its TLS files), as the CLI
 * reads them: `config check` loads the web config as `start` does and says what protects
 * `/metrics`; a FIFO or a device given as one of them is refused at once, naming it (a FIFO hung
 * every command before any message; /dev/zero as a certificate was read to 3 GB).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { skipWithout } from '../support/prometheus.js';
import { tempDir } from '../support/tmp.js';
import { makeCertificate, webConfigYaml, writeWebConfig } from '../support/web-config.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanups.splice(0)) fn();
});

function scratch() {
  const t = tempDir('glacier-files-');
  cleanups.push(t.cleanup);
  return { dir: t.dir, env: { DATABASE_PATH: join(t.dir, 'glacier.db'), METRICS_PORT: '9464' } };
}

/** Fails rather than hangs: a command stuck on a FIFO is killed and its output shown. */
const cli = (args: string[], env: Record<string, string>) => runCli(args, env, { timeoutMs: 30_000 });

describe.skipIf(skipWithout('openssl'))('config check and the metrics web config', () => {
  it('loads it as start would and says https:// and that basic auth is on', async () => {
    const { dir, env } = scratch();
    const cert = makeCertificate(dir);
    const web = writeWebConfig(dir, webConfigYaml({ cert, users: { prometheus: 'pw', grafana: 'pw' } }));
    const r = await cli(['config', 'check'], { ...env, METRICS_WEB_CONFIG: web });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`metrics: https://0.0.0.0:9464/metrics (METRICS_WEB_CONFIG ${web})`);
    expect(r.stdout).toMatch(/TLS TLSv1\.2 to TLSv1\.3, certificate CN=127\.0\.0\.1 valid until 20\d\d-/);
    expect(r.stdout).toContain('basic auth on for /metrics and /readyz: 2 users (prometheus, grafana)');
  });

  it('without a web config says /metrics is open', async () => {
    const { env } = scratch();
    const r = await cli(['config', 'check'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('metrics: http://0.0.0.0:9464/metrics (open to whoever reaches the port');
  });

  it('refuses, in config check and in start, a bcrypt cost outside 4..16, naming the user', async () => {
    const { dir, env } = scratch();
    const web = writeWebConfig(dir, `basic_auth_users:\n  alice: $2b$31$${'a'.repeat(53)}\n`);
    for (const command of [['config', 'check'], ['start']]) {
      const r = await cli(command, { ...env, METRICS_WEB_CONFIG: web });
      expect(r.code, command.join(' ')).toBe(2);
      expect(r.stderr).toContain(`basic_auth_users.alice = "$2b$31$`);
      expect(r.stderr).toContain('bcrypt cost outside 4..16');
    }
  });

  it('opens the TLS files: a key that is not the certificate’s fails config check, naming it', async () => {
    const { dir, env } = scratch();
    const cert = makeCertificate(dir);
    const other = makeCertificate(dir, 'other');
    const web = writeWebConfig(
      dir,
      webConfigYaml({ cert: { certFile: cert.certFile, keyFile: other.keyFile }, users: { p: 'pw' } }),
    );
    const r = await cli(['config', 'check'], { ...env, METRICS_WEB_CONFIG: web });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `tls_server_config.key_file ${other.keyFile} cannot be used with cert_file ${cert.certFile}`,
    );
  });

  it('refuses a web config that protects nothing, saying how to fix it', async () => {
    const { dir, env } = scratch();
    const web = writeWebConfig(dir, '# nothing yet\n');
    const r = await cli(['config', 'check'], { ...env, METRICS_WEB_CONFIG: web });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Invalid METRICS_WEB_CONFIG file ${web}: it protects nothing`);
    expect(r.stderr).toContain('unset METRICS_WEB_CONFIG');
  });
});

describe('files that are not regular files', () => {
  it.each([
    ['the config file', (fifo: string) => ({ GLACIER_CONFIG: fifo }), 'Cannot read config file'],
    [
      'the web config',
      (fifo: string) => ({ METRICS_WEB_CONFIG: fifo }),
      'Cannot read METRICS_WEB_CONFIG file',
    ],
    [
      'the API key file',
      (fifo: string) => ({ GLACIER_API_KEY_FILE: fifo }),
      'Cannot read GLACIER_API_KEY_FILE',
    ],
  ])('a FIFO as %s is refused at once, naming it', async (_what, envOf, message) => {
    const { dir, env } = scratch();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['config', 'check'], { ...env, ...envOf(fifo) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${message} ${fifo}: not a regular file (a FIFO)`);
  });

  it.skipIf(skipWithout('openssl'))(
    '/dev/zero as a certificate is refused at once, naming the key',
    async () => {
      const { dir, env } = scratch();
      const cert = makeCertificate(dir);
      const web = writeWebConfig(
        dir,
        webConfigYaml({ cert: { certFile: cert.certFile, keyFile: '/dev/zero' }, users: { p: 'pw' } }),
      );
      for (const command of [['config', 'check'], ['start']]) {
        const r = await cli(command, { ...env, METRICS_WEB_CONFIG: web, REDIS_URL: 'redis://127.0.0.1:1' });
        expect(r.code, command.join(' ')).toBe(2);
        expect(r.stderr).toContain(
          `Cannot read METRICS_WEB_CONFIG ${web}: tls_server_config.key_file /dev/zero: not a regular file (a character device)`,
        );
      }
    },
  );
});
