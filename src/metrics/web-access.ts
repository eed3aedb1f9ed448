/**
 * What METRICS_WEB_CONFIG asks of the metrics server (src/config/web-config.ts), kept current while
 * the service runs: its TLS options, its response headers, and the basic-auth check of /metrics and
 * of /readyz's details. /healthz stays open, and /readyz answers ready or not without credentials:
 * probes (the image's HEALTHCHECK, the kubelet's) have none, and they learn nothing but "the process
 * answers" and "its checks pass".
 *
 * The web config and its TLS files are re-read when they change, as exporter-toolkit re-reads them
 * (it reads the file on every request and the certificates on every connection): a request looks
 * at their stat (device, inode, size, times) at most once every RECHECK_MS, in the background, and
 * `reload()` (SIGHUP) re-reads them at once. A rotated password or certificate takes effect without
 * a restart. A change that cannot be applied to a running server (TLS turned on or off, another
 * client_auth_type, basic-auth users all removed while there were some) or a file that no longer
 * loads is logged as an error and the configuration in force stays: a typo while rotating must not
 * open the port or stop the scrapes. A TLS config without users is warned of at start (encrypted,
 * but open). A Kubernetes Secret mounted as a file is rotated by swapping a symlink: the stat follows
 * it, so the new file is seen within RECHECK_MS of the next request.
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import { loadWebConfig, readWebTls, type WebConfig, type WebTls } from '../config/index.js';
import type { Logger } from '../runtime/logger.js';
import { type AuthOutcome, type BasicAuth, createBasicAuth } from './basic-auth.js';
import { type BcryptChecker, type BcryptCheckerOptions, createBcryptChecker } from './bcrypt-checker.js';

/** The longest a changed web config (or TLS file) goes unnoticed while requests come in. */
export const RECHECK_MS = 1_000;

export interface WebAccess {
  /** The TLS options the server starts with, or undefined: plain HTTP. */
  readonly tls: (SecureContextOptions & Record<string, unknown>) | undefined;
  /** The headers every response carries (the current web config's). */
  headers(): Readonly<Record<string, string>>;
  /** Why a request's client certificate does not satisfy `client_auth_type`, or undefined. */
  clientCertProblem(req: IncomingMessage): string | undefined;
  /** The basic-auth verdict on a request ('busy': refused at once, the bcrypt checks are at their bound). */
  authorize(req: IncomingMessage, signal?: AbortSignal): Promise<AuthOutcome>;
  /** Re-reads the web config and its TLS files now (SIGHUP); true when the new one is in force. */
  reload(): Promise<boolean>;
  close(): Promise<void>;
}

export interface WebAccessOptions {
  config: WebConfig;
  log: Logger;
  /** Applies new TLS files to the server (https.Server#setSecureContext). */
  setSecureContext?: (options: SecureContextOptions) => void;
  /** @defaultValue RECHECK_MS */
  recheckMs?: number;
  /** The bounds of the bcrypt checks in flight (tests). */
  bcrypt?: BcryptCheckerOptions;
}

export function createWebAccess(options: WebAccessOptions): WebAccess {
  const { log } = options;
  const recheckMs = options.recheckMs ?? RECHECK_MS;
  let config = options.config;
  const tls = readWebTls(config);
  // Taken now, beside the config as loaded: a stat in the background could see a file written since
  // (a rotation at start-up), and that change would never be told apart from the files in force.
  let stamps: Promise<string> = Promise.resolve(fileStampsNow(config));
  let checker: BcryptChecker | undefined;
  const auth: BasicAuth = createBasicAuth({
    users: config.users,
    checker: {
      // The thread starts with the first check: a web config without users never starts it.
      compare: (...args) => {
        checker ??= createBcryptChecker(options.bcrypt);
        return checker.compare(...args);
      },
      pending: () => checker?.pending() ?? { renewal: 0, untrusted: 0 },
      close: async () => checker?.close(),
    },
  });
  if (config.tls && Object.keys(config.users).length === 0) {
    log.warn(
      { file: config.path },
      'metrics web config: TLS without basic_auth_users: /metrics is encrypted but open to anyone who can reach the port; add basic_auth_users (bcrypt hashes) to require credentials',
    );
  }
  let lastCheck = performance.now();
  let checking: Promise<unknown> | undefined;

  /** Loads the files again and applies them; a failure leaves the configuration in force. */
  const apply = (): boolean => {
    let next: WebConfig;
    let nextTls: WebTls | undefined;
    try {
      next = loadWebConfig(config.path);
      nextTls = readWebTls(next);
      const restart = needsRestart(config, next);
      if (restart) throw new Error(`${restart} cannot change while the server runs: restart it`);
    } catch (err) {
      log.error(
        { err: (err as Error).message, file: config.path },
        'metrics web config: reload failed; the one in force stays',
      );
      return false;
    }
    if (nextTls && options.setSecureContext) options.setSecureContext(secureContext(next, nextTls));
    auth.setUsers(next.users);
    config = next;
    log.info(
      { file: config.path, users: Object.keys(config.users).length, tls: Boolean(config.tls) },
      'metrics web config reloaded',
    );
    return true;
  };

  /** A look at the files' stat, at most once every recheckMs; a change reloads them. */
  const maybeRecheck = () => {
    if (checking || performance.now() - lastCheck < recheckMs) return;
    lastCheck = performance.now();
    checking = (async () => {
      const before = await stamps;
      const now = await fileStamps(config);
      if (now === before) return;
      // The stamps of the files seen, loaded or not: a broken file is reported once, not per request.
      stamps = Promise.resolve(now);
      if (apply()) stamps = fileStamps(config);
    })()
      .catch((err: Error) => log.error({ err: err.message }, 'metrics web config: cannot look at its files'))
      .finally(() => {
        checking = undefined;
      });
  };

  return {
    tls: tls && serverOptions(config, tls),
    headers: () => {
      maybeRecheck();
      return config.headers;
    },
    clientCertProblem: (req) => clientCertProblem(config, req),
    authorize: (req, signal) => auth.check(req.headers.authorization, signal),
    async reload() {
      await checking;
      const ok = apply();
      stamps = fileStamps(config);
      return ok;
    },
    async close() {
      await checker?.close();
    },
  };
}

/** What differs between two web configs that only a restart can apply, or undefined. */
function needsRestart(before: WebConfig, after: WebConfig): string | undefined {
  if (Boolean(before.tls) !== Boolean(after.tls)) return 'tls_server_config (TLS on or off)';
  // A file emptied of its users by mistake (a Secret rotated without them) must not open /metrics:
  // turning authentication off takes a restart, as turning TLS off does. Turning it on applies.
  if (Object.keys(before.users).length > 0 && Object.keys(after.users).length === 0) {
    return 'basic_auth_users (authentication turned off)';
  }
  if (before.tls && after.tls && before.tls.clientAuth !== after.tls.clientAuth) {
    return 'tls_server_config.client_auth_type';
  }
  return undefined;
}

/** The identity and times of the web config and its TLS files, one string to compare. */
async function fileStamps(config: WebConfig): Promise<string> {
  const files = [config.path, config.tls?.certFile, config.tls?.keyFile, config.tls?.clientCaFile];
  const stamps = await Promise.all(
    files.map(async (file) => {
      if (!file) return '';
      const s = await stat(file, { bigint: true }).catch(() => undefined);
      return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : 'missing';
    }),
  );
  return stamps.join('|');
}

/** `fileStamps` at once, for the files as the server starts with them. */
function fileStampsNow(config: WebConfig): string {
  const files = [config.path, config.tls?.certFile, config.tls?.keyFile, config.tls?.clientCaFile];
  return files
    .map((file) => {
      if (!file) return '';
      let s: ReturnType<typeof statSync> | undefined;
      try {
        s = statSync(file, { bigint: true, throwIfNoEntry: false });
      } catch {
        s = undefined;
      }
      return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : 'missing';
    })
    .join('|');
}

function secureContext(config: WebConfig, files: WebTls): SecureContextOptions {
  return {
    cert: files.cert,
    key: files.key,
    ...(files.ca && { ca: files.ca }),
    minVersion: config.tls?.minVersion,
    maxVersion: config.tls?.maxVersion,
  };
}

/** The https server's options. */
function serverOptions(config: WebConfig, files: WebTls): SecureContextOptions & Record<string, unknown> {
  const mode = config.tls?.clientAuth ?? 'NoClientCert';
  return {
    ...secureContext(config, files),
    requestCert: mode !== 'NoClientCert',
    // Only this mode fails the handshake; the others are judged per request (clientCertProblem).
    rejectUnauthorized: mode === 'RequireAndVerifyClientCert',
  };
}

function clientCertProblem(config: WebConfig, req: IncomingMessage): string | undefined {
  const mode = config.tls?.clientAuth;
  if (!mode || mode === 'NoClientCert' || mode === 'RequestClientCert') return undefined;
  const socket = req.socket as TLSSocket;
  const given = Object.keys(socket.getPeerCertificate?.() ?? {}).length > 0;
  if (mode === 'RequireAnyClientCert') return given ? undefined : 'a client certificate is required';
  if (mode === 'VerifyClientCertIfGiven' && given && !socket.authorized) {
    return 'the client certificate is not signed by client_ca_file';
  }
  return undefined;
}
