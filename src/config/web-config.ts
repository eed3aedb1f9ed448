/**
 * The Prometheus exporter-toolkit web configuration (`METRICS_WEB_CONFIG`): the same YAML file that
 * node_exporter's `--web.config.file` reads, so operators reuse the files they have. Supported:
 * `tls_server_config` (`cert_file`, `key_file`, `client_auth_type`, `client_ca_file`, `min_version`,
 * `max_version`), `basic_auth_users` (user: bcrypt hash) and `http_server_config.headers`. A key
 * of the toolkit's format this collector does not implement (`cipher_suites`, `http2`…) is refused
 * rather than ignored: a security setting silently dropped would be worse than an error. So is a
 * file that protects nothing (neither TLS nor users: `/metrics` would be open over plain HTTP while
 * the operator believes it protected).
 * https://prometheus.io/docs/prometheus/latest/configuration/https/
 */
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { readBoundedFile } from './bounded-file.js';
import { ConfigError, describeIssues } from './errors.js';
import { PARSED_ONCE } from './schema.js';

const BCRYPT = /^\$2[aby]?\$(\d{2})\$[./A-Za-z0-9]{53}$/;
/**
 * The bcrypt costs accepted. Each step doubles the work of a check: 4 is bcrypt's least, and 16
 * (about 5 s a check here) is past any a scrape can wait for; `$2b$31$` would run for days.
 */
export const BCRYPT_COSTS = { min: 4, max: 16 } as const;

/** The cost of a bcrypt hash the schema accepted. */
export function bcryptCost(hash: string): number {
  return Number(BCRYPT.exec(hash)?.[1]);
}

/** Why a configured response header is refused, or undefined. */
function headerProblem(name: string, value: string): string | undefined {
  const allowed = allowedHeaderName(name);
  if (!allowed) {
    return `this header cannot be set; the headers a web config may set are ${Object.keys(ALLOWED_RESPONSE_HEADERS).join(', ')} (exporter-toolkit's list)`;
  }
  const values = ALLOWED_RESPONSE_HEADERS[allowed];
  if (values && !values.includes(value.toLowerCase())) return `expected one of ${values.join(', ')}`;
  return undefined;
}

/** The allowed header's spelling for a name given in any case, or undefined. */
function allowedHeaderName(name: string): string | undefined {
  return Object.keys(ALLOWED_RESPONSE_HEADERS).find((h) => h.toLowerCase() === name.toLowerCase());
}

const costAccepted = (cost: number) => cost >= BCRYPT_COSTS.min && cost <= BCRYPT_COSTS.max;

/**
 * The response headers a web config may set, and their allowed values when the header has a fixed
 * set (any value otherwise): exporter-toolkit's list (web/handler.go `extraHTTPHeaders`), the
 * security headers. A framing or routing header (Transfer-Encoding, Content-Length, Connection…)
 * beside the server's own would be a request-smuggling hazard behind a proxy.
 */
export const ALLOWED_RESPONSE_HEADERS: Readonly<Record<string, readonly string[] | undefined>> = {
  'Strict-Transport-Security': undefined,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': undefined,
  'Content-Security-Policy': undefined,
};
const tlsVersions = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
const tlsVersionOrder = Object.keys(tlsVersions);
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
    .refine((t) => !t.client_ca_file || t.client_auth_type !== 'NoClientCert', {
      path: ['client_ca_file'],
      message:
        'set without a client_auth_type that asks for client certificates (e.g. RequireAndVerifyClientCert)',
    })
    .refine((t) => tlsVersionOrder.indexOf(t.min_version) <= tlsVersionOrder.indexOf(t.max_version), {
      path: ['max_version'],
      message: 'lower than min_version: every handshake would fail (the defaults are TLS12 to TLS13)',
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
        .regex(BCRYPT, 'must be a bcrypt hash ($2y$10$…, e.g. from `htpasswd -nBC 10 ""`), not a password')
        .refine((hash) => !BCRYPT.test(hash) || costAccepted(bcryptCost(hash)), {
          message: `bcrypt cost outside ${BCRYPT_COSTS.min}..${BCRYPT_COSTS.max}: each step doubles the time of a check (hash it again, e.g. \`htpasswd -nBC 10 ""\`)`,
        }),
    )
    .optional(),
  http_server_config: z
    .strictObject({
      headers: z
        .record(z.string(), z.string().regex(/^[\t\x20-\x7e]*$/, 'visible ASCII characters only'))
        .superRefine((headers, ctx) => {
          for (const [name, value] of Object.entries(headers)) {
            const problem = headerProblem(name, value);
            if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
          }
        })
        .optional(),
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
  const parsed = webConfigSchema.safeParse(raw ?? {}, PARSED_ONCE);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, raw);
    throw new ConfigError(
      `Invalid METRICS_WEB_CONFIG file ${path}:\n  - ${problems.join('\n  - ')}`,
      problems,
    );
  }
  const c = parsed.data;
  const users = c.basic_auth_users ?? {};
  if (!c.tls_server_config && Object.keys(users).length === 0) {
    const problem =
      'it protects nothing: it sets neither tls_server_config nor basic_auth_users, so /metrics would be served open over plain HTTP. Add basic_auth_users (and tls_server_config, so the password does not travel in clear), or unset METRICS_WEB_CONFIG to serve /metrics open on purpose';
    throw new ConfigError(`Invalid METRICS_WEB_CONFIG file ${path}: ${problem}`, [problem]);
  }
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
    users,
    headers: Object.fromEntries(
      Object.entries(c.http_server_config?.headers ?? {}).map(([name, value]) => [
        allowedHeaderName(name) ?? name,
        value,
      ]),
    ),
  };
}
