import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  /** PEM file of the test CA, for NODE_EXTRA_CA_CERTS. */
  caPath: string;
  caPem: string;
  /** Signed by the test CA for localhost, hooks.example.test, 127.0.0.1 and ::1. */
  server: { key: string; cert: string };
  /** Self-signed, trusted by nobody. */
  untrusted: { key: string; cert: string };
  /** A client certificate (clientAuth) signed by the test CA, and the same as a PKCS#12 file with its passphrase. */
  client: { key: string; cert: string; p12Path: string; passphrase: string };
  /** A client certificate signed by another CA (`foreignCaPem`), which the test CA's holders must refuse. */
  foreignClient: { key: string; cert: string };
  foreignCaPem: string;
  remove(): void;
}

export const TEST_HOSTNAME = 'hooks.example.test';

const EC_KEY = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1';
const CLIENT_EXTENSIONS = ['basicConstraints=CA:FALSE', 'extendedKeyUsage=clientAuth'].join('\n');
const SERVER_EXTENSIONS = [
  `subjectAltName=DNS:localhost,DNS:${TEST_HOSTNAME},IP:127.0.0.1,IP:::1`,
  'basicConstraints=CA:FALSE',
  'extendedKeyUsage=serverAuth',
].join('\n');

/** A throwaway CA made with the openssl CLI, so no test trusts a certificate checked into the repo. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'test-pki-'));
  // Every argument is space-free and every file is relative to `dir`, so splitting on spaces is safe.
  const openssl = (args: string): void => {
    execFileSync('openssl', args.split(' '), { cwd: dir, stdio: 'pipe' });
  };
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');

  openssl(
    `req -x509 ${EC_KEY} -keyout ca.key -out ca.crt -subj /CN=gateway-test-ca` +
      ' -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(`req ${EC_KEY} -keyout server.key -out server.csr -subj /CN=localhost`);
  writeFileSync(join(dir, 'server.ext'), SERVER_EXTENSIONS);
  openssl(
    'x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 1 -extfile server.ext',
  );
  openssl(
    `req -x509 ${EC_KEY} -keyout untrusted.key -out untrusted.crt -subj /CN=localhost` +
      ' -addext subjectAltName=DNS:localhost,IP:127.0.0.1',
  );

  writeFileSync(join(dir, 'client.ext'), CLIENT_EXTENSIONS);
  const clientOf = (name: string, ca: string): void => {
    openssl(`req ${EC_KEY} -keyout ${name}.key -out ${name}.csr -subj /CN=${name}`);
    openssl(
      `x509 -req -in ${name}.csr -CA ${ca}.crt -CAkey ${ca}.key -CAcreateserial -out ${name}.crt -days 1 -extfile client.ext`,
    );
  };
  clientOf('client', 'ca');
  // A random passphrase: nothing about the file is guessable, and it is space-free for the argument split.
  const passphrase = `p12-${randomBytes(9).toString('base64url')}`;
  openssl(
    `pkcs12 -export -in client.crt -inkey client.key -out client.p12 -name client -passout pass:${passphrase}`,
  );
  openssl(
    `req -x509 ${EC_KEY} -keyout foreign-ca.key -out foreign-ca.crt -subj /CN=another-ca` +
      ' -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign',
  );
  clientOf('foreign-client', 'foreign-ca');

  return {
    caPath: join(dir, 'ca.crt'),
    caPem: read('ca.crt'),
    server: { key: read('server.key'), cert: read('server.crt') },
    untrusted: { key: read('untrusted.key'), cert: read('untrusted.crt') },
    client: {
      key: read('client.key'),
      cert: read('client.crt'),
      p12Path: join(dir, 'client.p12'),
      passphrase,
    },
    foreignClient: { key: read('foreign-client.key'), cert: read('foreign-client.crt') },
    foreignCaPem: read('foreign-ca.crt'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
