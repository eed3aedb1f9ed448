/**
 * The Prometheus exporter-toolkit web configuration (`METRICS_WEB_CONFIG`): the same YAML file that
 * node_exporter's `--web.config.file` reads, so operators reuse the files they have. Supported:
 * `tls_server_config` (`cert_file`, `key_file`, `client_auth_type`, `client_ca_file`, `min_version`,
 * `max_version`), `basic_auth_users` (user: bcrypt hash) and `http_server_config.headers`. A key
 * of the toolkit's format this collector does not implement (`cipher_suites`, `http2`…) is refused
 * rather than ignored: a security setting silently dropped would be worse than an error.
 * https://prometheus.io/docs/prometheus/latest/configuration/https/
 */
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { readBoundedFile } from './bounded-file.js';
import { ConfigError, describeIssues } from './errors.js';

const BCRYPT = /^\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}$/;
const tlsVersions = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
const tlsVersion = z.enum(
  Object.keys(tlsVersions) as [keyof typeof tlsVersions, ...(keyof typeof tlsVersions)[]],
);
const clientAuthTypes = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;

const notSupported = (key: string) =>
  z.never({ message: `${key} is not supported by glacier-collector (remove it, or put a proxy in front)` });

const webConfigSchema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert_file: z.string().min(1),
      key_file: z.string().min(1),
      client_auth_type: z.enum(clientAuthTypes).default('NoClientCert'),
      client_ca_file: z.string().min(1).optional(),
      min_version: tlsVersion.default('TLS12'),
      max_version: tlsVersion.default('TLS13'),
      cert: notSupported('cert (inline)').optional(),
      key: notSupported('key (inline)').optional(),
      client_ca: notSupported('client_ca (inline)').optional(),
      cipher_suites: notSupported('cipher_suites').optional(),
      curve_preferences: notSupported('curve_preferences').optional(),
      prefer_server_cipher_suites: notSupported('prefer_server_cipher_suites').optional(),
      client_allowed_sans: notSupported('client_allowed_sans').optional(),
    })
    .refine((t) => !t.client_auth_type.includes('Verify') || t.client_ca_file, {
      path: ['client_ca_file'],
      message: 'required when client_auth_type verifies client certificates',
    })
    .optional(),
  basic_auth_users: z
    .record(
      z
        .string()
        .min(1)
        .regex(/^[^:]+$/, 'a user name holds no ":"'),
      z
        .string()
        .regex(BCRYPT, 'must be a bcrypt hash ($2y$10$…, e.g. from `htpasswd -nBC 10 ""`), not a password'),
    )
    .optional(),
  http_server_config: z
    .strictObject({
      headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/), z.string().regex(/^[\t\x20-\x7e]*$/)).optional(),
      http2: notSupported('http2').optional(),
    })
    .optional(),
  rate_limit: notSupported('rate_limit').optional(),
});

export interface WebConfig {
  /** The file it came from (errors name it). */
  path: string;
  tls?: {
    certFile: string;
    keyFile: string;
    clientCaFile?: string | undefined;
    clientAuth: (typeof clientAuthTypes)[number];
    minVersion: (typeof tlsVersions)[keyof typeof tlsVersions];
    maxVersion: (typeof tlsVersions)[keyof typeof tlsVersions];
  };
  /** User name → bcrypt hash; empty: no authentication. */
  users: Record<string, string>;
  headers: Record<string, string>;
}

/** Reads and validates the web config file; file paths in it are relative to its own directory. */
export function loadWebConfig(path: string): WebConfig {
  const text = readBoundedFile(path, 'METRICS_WEB_CONFIG file');
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (cause) {
    throw new ConfigError(
      `METRICS_WEB_CONFIG file ${path} is not valid YAML: ${(cause as Error).message}`,
      undefined,
      {
        cause,
      },
    );
  }
  const parsed = webConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, raw);
    throw new ConfigError(
      `Invalid METRICS_WEB_CONFIG file ${path}:\n  - ${problems.join('\n  - ')}`,
      problems,
    );
  }
  const c = parsed.data;
  const near = (file: string) => resolve(dirname(path), file);
  const tls = c.tls_server_config;
  return {
    path,
    ...(tls && {
      tls: {
        certFile: near(tls.cert_file),
        keyFile: near(tls.key_file),
        clientCaFile: tls.client_ca_file && near(tls.client_ca_file),
        clientAuth: tls.client_auth_type,
        minVersion: tlsVersions[tls.min_version],
        maxVersion: tlsVersions[tls.max_version],
      },
    }),
    users: c.basic_auth_users ?? {},
    headers: c.http_server_config?.headers ?? {},
  };
}
