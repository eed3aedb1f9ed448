/**
 * The TLS files of the metrics web config (`tls_server_config`), read and checked as the server
 * uses them: `config check` and `start` both call `readWebTls`, so a key that does not match its
 * certificate, a file that is no PEM, or a FIFO named as a certificate is refused before the
 * service starts, naming the key of the web config and the file.
 */
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { readBoundedBytes } from './bounded-file.js';
import { ConfigError } from './errors.js';
import type { WebConfig } from './web-config.js';

/** A certificate chain or a CA bundle is a few KiB (the system's whole bundle about 200 KiB). */
export const MAX_TLS_FILE_BYTES = 1024 * 1024;

export interface WebTls {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer | undefined;
  /** The server certificate's subject and end of validity, for `config check`. */
  subject: string;
  validTo: Date;
}

/** The TLS files of `config` read (bounded, non-blocking) and parsed; undefined without TLS. */
export function readWebTls(config: WebConfig): WebTls | undefined {
  const tls = config.tls;
  if (!tls) return undefined;
  const what = (key: string) => `METRICS_WEB_CONFIG ${config.path}: tls_server_config.${key}`;
  const read = (key: string, file: string) =>
    readBoundedBytes(file, what(key), { maxBytes: MAX_TLS_FILE_BYTES, kind: 'a TLS file' });
  const cert = read('cert_file', tls.certFile);
  const key = read('key_file', tls.keyFile);
  const ca = tls.clientCaFile === undefined ? undefined : read('client_ca_file', tls.clientCaFile);

  const parsed = parseCertificate(cert, `${what('cert_file')} ${tls.certFile}`);
  if (ca) parseCertificate(ca, `${what('client_ca_file')} ${tls.clientCaFile}`);
  try {
    createSecureContext({
      cert,
      key,
      ...(ca && { ca }),
      minVersion: tls.minVersion,
      maxVersion: tls.maxVersion,
    });
  } catch (cause) {
    throw new ConfigError(
      `${what('key_file')} ${tls.keyFile} cannot be used with cert_file ${tls.certFile}: ${(cause as Error).message}`,
      undefined,
      { cause },
    );
  }
  return { cert, key, ca, subject: parsed.subject.replace(/\n/g, ', '), validTo: new Date(parsed.validTo) };
}

function parseCertificate(pem: Buffer, where: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (cause) {
    throw new ConfigError(
      `${where} holds no certificate Node can read (a PEM file, -----BEGIN CERTIFICATE-----): ${(cause as Error).message}`,
      undefined,
      { cause },
    );
  }
}
