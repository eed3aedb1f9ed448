/**
 * Metrics web configs for tests: a self-signed certificate for 127.0.0.1 made with openssl when the
 * test runs, and web config files written beside it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';

export interface TestCertificate {
  certFile: string;
  keyFile: string;
}

/** A fresh EC key and a self-signed certificate for IP 127.0.0.1, written to `dir` as `<name>.pem` and `<name>-key.pem`. */
export function makeCertificate(dir: string, name = 'cert'): TestCertificate {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}-key.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}

/** The YAML of a web config: TLS from `cert` (when given), and one user per entry of `users` (bcrypt of its password at `cost`). */
export function webConfigYaml(options: {
  cert?: TestCertificate;
  users?: Record<string, string>;
  cost?: number;
  extra?: string[];
}): string {
  const lines: string[] = [];
  if (options.cert) {
    lines.push(
      'tls_server_config:',
      `  cert_file: ${options.cert.certFile}`,
      `  key_file: ${options.cert.keyFile}`,
    );
  }
  const users = Object.entries(options.users ?? {});
  if (users.length > 0) {
    lines.push('basic_auth_users:');
    for (const [user, password] of users)
      lines.push(`  ${user}: ${bcrypt.hashSync(password, options.cost ?? 4)}`);
  }
  lines.push(...(options.extra ?? []));
  return `${lines.join('\n')}\n`;
}

/** Writes `text` to `dir/name` and returns its path. */
export function writeWebConfig(dir: string, text: string, name = 'web.yml'): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `Basic …` for `user:password`. */
export function basicAuth(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}
