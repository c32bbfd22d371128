import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ListenTls {
  /** The local CA's certificate: the gateway's webhook dispatcher trusts it through NODE_EXTRA_CA_CERTS. */
  caPath: string;
  key: string;
  cert: string;
}

/** Renewed this long before it expires, so a listener never starts with a certificate about to lapse. */
const RENEW_BEFORE_MS = 7 * 24 * 3600 * 1000;
/** Browsers' and Apple's ceiling for a server certificate; the CA lives as long. */
const VALID_DAYS = '825';
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * The HTTPS identity of `listen`'s receiver: a CA of this machine's own (made once with the openssl CLI, kept in
 * `dir`) and a certificate it signed for localhost, 127.0.0.1 and ::1. Webhook URLs must be https:// and the
 * dispatcher verifies TLS, so a stack run with NODE_EXTRA_CA_CERTS=<caPath> reaches the receiver; nothing else is
 * asked to trust this CA.
 */
export function ensureListenTls(dir: string): ListenTls {
  const file = (name: string) => join(dir, name);
  const caPath = file('ca.pem');
  const newCa = !existsSync(caPath) || expiresSoon(caPath);
  if (newCa) createCa(dir);
  if (newCa || !existsSync(file('server.pem')) || expiresSoon(file('server.pem')))
    createServerCertificate(dir);
  return {
    caPath,
    key: readFileSync(file('server-key.pem'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
  };
}

function expiresSoon(path: string): boolean {
  const certificate = new X509Certificate(readFileSync(path));
  return Date.parse(certificate.validTo) - Date.now() < RENEW_BEFORE_MS;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function createCa(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  openssl(dir, [
    'req',
    '-x509',
    ...EC_KEY,
    '-days',
    VALID_DAYS,
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
    '-subj',
    '/CN=gateway CLI listen (local CA)',
    '-addext',
    'basicConstraints=critical,CA:TRUE,pathlen:0',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

function createServerCertificate(dir: string): void {
  openssl(dir, [
    'req',
    ...EC_KEY,
    '-keyout',
    'server-key.pem',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  ]);
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      'basicConstraints=CA:FALSE',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  );
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    VALID_DAYS,
    '-extfile',
    'server.ext',
  ]);
  for (const scratch of ['server.csr', 'server.ext']) rmSync(join(dir, scratch));
}
