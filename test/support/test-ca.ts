import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

/**
 * A certificate authority made for one test with openssl: a server certificate for 127.0.0.1 and
 * localhost, a client certificate, and a second CA that signed neither (the "wrong CA"). Files are
 * PEM, in a temporary directory readable by all (a private PostgreSQL runs as user postgres).
 */
export interface TestCa {
  dir: string;
  caFile: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A CA that signed nothing here. */
  otherCaFile: string;
  /** A server certificate of the test CA for another name (`elsewhere.invalid`): the "wrong name". */
  elsewhereCert: string;
  elsewhereKey: string;
  cleanup(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

function makeCa(dir: string, name: string): void {
  openssl(
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
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
}

function issue(dir: string, ca: string, name: string, cn: string, ext: string): void {
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    ],
    dir,
  );
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
}

export function makeTestCa(): TestCa {
  const { dir, cleanup } = tempDir('glacier-ca-');
  chmodSync(dir, 0o755);
  makeCa(dir, 'test-ca');
  makeCa(dir, 'other-ca');
  issue(
    dir,
    'test-ca',
    'server',
    'localhost',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n',
  );
  issue(dir, 'test-ca', 'client', 'glacier-collector', 'extendedKeyUsage=clientAuth\n');
  issue(
    dir,
    'test-ca',
    'elsewhere',
    'elsewhere.invalid',
    'subjectAltName=DNS:elsewhere.invalid\nextendedKeyUsage=serverAuth\n',
  );
  for (const f of ['server.key', 'client.key', 'elsewhere.key']) chmodSync(join(dir, f), 0o644);
  return {
    dir,
    caFile: join(dir, 'test-ca.crt'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
    otherCaFile: join(dir, 'other-ca.crt'),
    elsewhereCert: join(dir, 'elsewhere.crt'),
    elsewhereKey: join(dir, 'elsewhere.key'),
    cleanup,
  };
}
