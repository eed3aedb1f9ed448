/**
 * The TLS files the collector presents as a client, to Redis (`REDIS_TLS_*_FILE`) and to PostgreSQL
 * (`DATABASE_TLS_*_FILE`): the CA that signed the server's certificate, and an optional client
 * certificate and key. Read once by the config loader (bounded, non-blocking, as every operator
 * file), parsed, and the key checked against its certificate, so a wrong file fails at start-up
 * naming its variable instead of at the first connection.
 */
import { X509Certificate } from 'node:crypto';
import { resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { readBoundedBytes } from './bounded-file.js';
import { ConfigError } from './errors.js';
import { MAX_TLS_FILE_BYTES } from './web-tls.js';

export interface ClientTls {
  /** The variables the files came from, for messages: `REDIS_TLS_CA_FILE`… */
  vars: ClientTlsVars;
  caFile?: string | undefined;
  certFile?: string | undefined;
  keyFile?: string | undefined;
  ca?: Buffer | undefined;
  cert?: Buffer | undefined;
  /** A private key: never printed. */
  key?: Buffer | undefined;
  /** The CA's and the client certificate's subjects, for `config check`. */
  caSubject?: string | undefined;
  certSubject?: string | undefined;
}

export interface ClientTlsVars {
  ca: string;
  cert: string;
  key: string;
}

/** The three variables of a prefix: `REDIS_TLS` → REDIS_TLS_CA_FILE, _CERT_FILE, _KEY_FILE. */
export function clientTlsVars(prefix: 'REDIS_TLS' | 'DATABASE_TLS'): ClientTlsVars {
  return { ca: `${prefix}_CA_FILE`, cert: `${prefix}_CERT_FILE`, key: `${prefix}_KEY_FILE` };
}

/** The files named, read and checked; undefined when none is named. */
export function readClientTls(
  files: { ca?: string | undefined; cert?: string | undefined; key?: string | undefined },
  vars: ClientTlsVars,
  cwd: string,
): ClientTls | undefined {
  if (files.ca === undefined && files.cert === undefined && files.key === undefined) return undefined;
  if ((files.cert === undefined) !== (files.key === undefined)) {
    const [given, missing] = files.cert === undefined ? [vars.key, vars.cert] : [vars.cert, vars.key];
    throw new ConfigError(
      `${given} is set but ${missing} is not: a client certificate needs its key, and a key its certificate`,
    );
  }
  const read = (variable: string, file: string) =>
    readBoundedBytes(resolve(cwd, file), variable, { maxBytes: MAX_TLS_FILE_BYTES, kind: 'a TLS file' });
  const tls: ClientTls = { vars, caFile: files.ca, certFile: files.cert, keyFile: files.key };
  if (files.ca !== undefined) {
    tls.ca = read(vars.ca, files.ca);
    tls.caSubject = subjectOf(tls.ca, `${vars.ca} = "${files.ca}"`);
  }
  if (files.cert !== undefined && files.key !== undefined) {
    tls.cert = read(vars.cert, files.cert);
    tls.key = read(vars.key, files.key);
    tls.certSubject = subjectOf(tls.cert, `${vars.cert} = "${files.cert}"`);
    try {
      createSecureContext({ cert: tls.cert, key: tls.key });
    } catch (cause) {
      throw new ConfigError(
        `${vars.key} = "${files.key}" cannot be used with ${vars.cert} = "${files.cert}": ${(cause as Error).message}`,
        undefined,
        { cause },
      );
    }
  }
  return tls;
}

function subjectOf(pem: Buffer, where: string): string {
  try {
    return new X509Certificate(pem).subject.replace(/\n/g, ', ');
  } catch (cause) {
    throw new ConfigError(
      `${where} holds no certificate Node can read (a PEM file, -----BEGIN CERTIFICATE-----): ${(cause as Error).message}`,
      undefined,
      { cause },
    );
  }
}

/** The TLS state as `config check` prints it: which CA is trusted, and whether a client certificate is sent. */
export function describeClientTls(tls: ClientTls | undefined): string {
  const ca = tls?.caFile
    ? `CA ${tls.caFile} (${tls.caSubject})`
    : `the system's CAs${tls ? '' : ' (no CA file)'}`;
  const cert = tls?.certFile
    ? `client certificate ${tls.certFile} (${tls.certSubject})`
    : 'no client certificate';
  return `${ca}, ${cert}`;
}

/** The files as `config check --print` shows them: paths, never their bytes (the key is a secret). */
export function printableClientTls(tls: ClientTls | undefined): Record<string, string> | undefined {
  if (!tls) return undefined;
  return Object.fromEntries(
    [
      ['caFile', tls.caFile],
      ['certFile', tls.certFile],
      ['keyFile', tls.keyFile],
    ].filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/**
 * OpenSSL's codes (as Node gives them in `err.code`) for a server certificate that is not trusted or
 * does not match the host: what a wrong or missing CA file gives.
 */
const UNTRUSTED_CERTIFICATE = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * What to check when `err` (or a cause of it) is a server certificate the client refused: the CA
 * variable, and the file it names (or that none is set). Undefined for any other error.
 */
export function untrustedCertificateHint(err: unknown, caVar: string, caFile?: string): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: string }).code;
    if (code && UNTRUSTED_CERTIFICATE.has(code)) {
      const trusted = caFile ? `${caVar} = "${caFile}"` : `the system's CAs (${caVar} is not set)`;
      return code === 'ERR_TLS_CERT_ALTNAME_INVALID'
        ? `the server's certificate does not name the host connected to (${code}); its CA is from ${trusted}`
        : `the server's certificate is not signed by a CA trusted by ${trusted} (${code}); it must name the CA that signed the server's certificate`;
    }
  }
  return undefined;
}
