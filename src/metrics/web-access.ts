/**
 * What METRICS_WEB_CONFIG asks of the metrics server (src/config/web-config.ts): its TLS options,
 * and the basic-auth check of /metrics and of /readyz's details. /healthz stays open, and /readyz
 * answers ready or not without credentials: probes (the image's HEALTHCHECK, the kubelet's) have
 * none, and they learn nothing but "the process answers" and "its checks pass".
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import bcrypt from 'bcryptjs';
import type { WebConfig } from '../config/web-config.js';

export class WebConfigError extends Error {
  override readonly name = 'WebConfigError';
}

/** The https server's options, the files read now: an unreadable one is named with its key. */
export function tlsOptions(config: WebConfig): (SecureContextOptions & Record<string, unknown>) | undefined {
  const tls = config.tls;
  if (!tls) return undefined;
  const read = (key: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new WebConfigError(
        `METRICS_WEB_CONFIG ${config.path}: cannot read tls_server_config.${key} ${file}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  };
  const requestCert = tls.clientAuth !== 'NoClientCert';
  return {
    cert: read('cert_file', tls.certFile),
    key: read('key_file', tls.keyFile),
    ...(tls.clientCaFile && { ca: read('client_ca_file', tls.clientCaFile) }),
    minVersion: tls.minVersion,
    maxVersion: tls.maxVersion,
    requestCert,
    // Only this mode fails the handshake; the others are judged per request (clientCertProblem).
    rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert',
  };
}

/** Why a request's client certificate does not satisfy `client_auth_type`, or undefined. */
export function clientCertProblem(config: WebConfig, req: IncomingMessage): string | undefined {
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

/** A hash no password matches: an unknown user costs the same bcrypt work as a known one. */
const DUMMY_HASH = '$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi';
/** Successful checks remembered (by a digest of user, password and hash), as exporter-toolkit does: bcrypt is slow on purpose. */
const CACHE_SIZE = 100;

/** The basic-auth check of the users of the web config; always true when it lists none. */
export function createBasicAuth(config: WebConfig): (req: IncomingMessage) => Promise<boolean> {
  const users = config.users;
  const open = Object.keys(users).length === 0;
  const verified = new Set<string>();
  return async (req) => {
    if (open) return true;
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match) return false;
    const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const hash = Object.hasOwn(users, user) ? (users[user] as string) : undefined;
    const key = createHash('sha256')
      .update(`${user}\0${password}\0${hash ?? ''}`)
      .digest();
    for (const known of verified) {
      if (timingSafeEqual(Buffer.from(known, 'base64'), key)) return true;
    }
    const ok = await bcrypt.compare(password, hash ?? DUMMY_HASH);
    if (!ok || !hash) return false;
    if (verified.size >= CACHE_SIZE) verified.delete(verified.values().next().value as string);
    verified.add(key.toString('base64'));
    return true;
  };
}
