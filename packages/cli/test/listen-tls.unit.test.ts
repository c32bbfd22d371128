import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { connect, createServer } from 'node:tls';
import { ensureListenTls, issueCertificates, LOOPBACK_HOSTS, VALID_DAYS } from '../src/listen-tls';

const bin = join(__dirname, '../bin/gateway.cjs');
const DAY_MS = 24 * 3600 * 1000;

/** What Node's TLS client (the stack's dispatcher is one) says of a server's certificate: 'trusted', or its error. */
async function verdict(
  server: { key: string; cert: string },
  ca: string,
  servername: string,
): Promise<string> {
  const listener = createServer({ key: server.key, cert: server.cert }, (socket) => socket.end());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise<string>((resolve) => {
      const socket = connect(
        { host: '127.0.0.1', port: (listener.address() as AddressInfo).port, servername, ca },
        () => {
          resolve('trusted');
          socket.end();
        },
      );
      // Node has no code of its own for OpenSSL's X509_V_ERR_PERMITTED_VIOLATION: its message names it.
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.message));
    });
  } finally {
    await new Promise((resolve) => listener.close(resolve));
  }
}

/** Every file under `dir` holding a private key, relative to it (symlinks not followed: each file counted once). */
function privateKeysUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = join(prefix, entry.name);
    if (entry.isDirectory()) return privateKeysUnder(dir, path);
    return entry.isFile() && readFileSync(join(dir, path), 'utf8').includes('PRIVATE KEY') ? [path] : [];
  });
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("listen's local CA", () => {
  let dir: string;

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'listen-tls-')), 'tls');
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  test('its name constraints make Node refuse a certificate it signed for any other host', async () => {
    mkdirSync(dir);
    issueCertificates(dir, LOOPBACK_HOSTS, [
      { name: 'server', hosts: LOOPBACK_HOSTS },
      { name: 'outsider', hosts: ['bank.example'] },
      { name: 'smuggler', hosts: ['localhost', 'bank.example'] },
    ]);
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const issued = (name: string) => ({
      key: readFileSync(join(dir, `${name}-key.pem`), 'utf8'),
      cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    });

    expect(await verdict(issued('server'), ca, 'localhost')).toBe('trusted');
    // Signed by the trusted CA, and still refused: outside what the CA may vouch for.
    expect(await verdict(issued('outsider'), ca, 'bank.example')).toBe('permitted subtree violation');
    expect(await verdict(issued('smuggler'), ca, 'localhost')).toBe('permitted subtree violation');
    // The CA's key went as soon as the certificates were signed.
    expect(privateKeysUnder(dir).sort()).toEqual(['outsider-key.pem', 'server-key.pem', 'smuggler-key.pem']);
    const authority = new X509Certificate(ca);
    expect(authority.ca).toBe(true);
    expect(Date.parse(authority.validTo) - Date.now()).toBeLessThanOrEqual(VALID_DAYS * DAY_MS);
  });

  test('leaves no CA key on disk, only the receiver key (0600), in a directory closed to others (0700)', async () => {
    const tls = ensureListenTls(dir);
    // The first CA: made, nothing replaced.
    expect({ created: tls.created, renewed: tls.renewed }).toEqual({ created: true, renewed: false });
    expect(tls.caPath).toBe(join(dir, 'ca.pem'));
    expect(await verdict(tls, readFileSync(tls.caPath, 'utf8'), 'localhost')).toBe('trusted');
    const [receiverKey, ...others] = privateKeysUnder(dir);
    expect(others).toEqual([]);
    expect(readFileSync(join(dir, receiverKey!), 'utf8')).toBe(tls.key);
    expect(new X509Certificate(tls.cert).checkPrivateKey(createPrivateKey(tls.key))).toBe(true);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, receiverKey!))).toBe(0o600);
    expect(mode(join(dir, 'current'))).toBe(0o700);

    // Loosened since (an older CLI, a umask): closed again on the next run, which keeps what is there.
    chmodSync(dir, 0o755);
    chmodSync(join(dir, receiverKey!), 0o644);
    const again = ensureListenTls(dir);
    expect(again).toEqual({ ...tls, created: false, renewed: false });
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, receiverKey!))).toBe(0o600);
  });

  test("the first layout's files, its CA key among them, are removed and a new CA made", () => {
    mkdirSync(dir, { mode: 0o755 });
    issueCertificates(dir, LOOPBACK_HOSTS, [{ name: 'server', hosts: LOOPBACK_HOSTS }]);
    writeFileSync(join(dir, 'ca-key.pem'), '-----BEGIN PRIVATE KEY-----\nthe old CA key\n');
    writeFileSync(join(dir, 'ca.srl'), '01\n');
    const legacyCa = readFileSync(join(dir, 'ca.pem'), 'utf8');

    const tls = ensureListenTls(dir);
    expect({ created: tls.created, renewed: tls.renewed }).toEqual({ created: false, renewed: true });
    expect(readFileSync(tls.caPath, 'utf8')).not.toBe(legacyCa);
    expect(readdirSync(dir).sort()).toEqual(['ca.pem', 'current', readlinkSync(join(dir, 'current'))].sort());
    expect(privateKeysUnder(dir)).toHaveLength(1);
  });

  test('a CA near its end is renewed, CA and certificate together, and the old generation removed', () => {
    mkdirSync(dir, { mode: 0o700 });
    const old = join(dir, 'gen-old');
    mkdirSync(old, { mode: 0o700 });
    issueCertificates(old, LOOPBACK_HOSTS, [{ name: 'server', hosts: LOOPBACK_HOSTS }], 1);
    symlinkSync('gen-old', join(dir, 'current'));
    symlinkSync(join('current', 'ca.pem'), join(dir, 'ca.pem'));
    const expiring = readFileSync(join(old, 'ca.pem'), 'utf8');

    const tls = ensureListenTls(dir);
    expect({ created: tls.created, renewed: tls.renewed }).toEqual({ created: false, renewed: true });
    const ca = new X509Certificate(readFileSync(tls.caPath));
    expect(ca.toString()).not.toBe(expiring);
    expect(new X509Certificate(tls.cert).verify(ca.publicKey)).toBe(true);
    expect(Date.parse(ca.validTo) - Date.now()).toBeGreaterThan((VALID_DAYS - 1) * DAY_MS);
    expect(readdirSync(dir)).not.toContain('gen-old');
  });

  test('another host is certified, and vouched for, when asked; a name that is not a host is refused', async () => {
    const tls = ensureListenTls(dir, ['host.docker.internal']);
    const ca = readFileSync(tls.caPath, 'utf8');
    expect(new X509Certificate(tls.cert).checkHost('host.docker.internal')).toBe('host.docker.internal');
    expect(await verdict(tls, ca, 'host.docker.internal')).toBe('trusted');
    // Already covered: kept. Not covered: a new CA.
    expect(ensureListenTls(dir).renewed).toBe(false);
    expect(ensureListenTls(dir, ['gateway.test']).renewed).toBe(true);
    expect(() => ensureListenTls(dir, ['*.example'])).toThrow(/not a host name/);
  });

  test('of two first runs at once, both end with the one CA put in use', () => {
    let inner: ReturnType<typeof ensureListenTls> | undefined;
    // The other run makes and installs its CA while this one is between making its own and installing it.
    const outer = ensureListenTls(dir, [], { beforeInstall: () => (inner = ensureListenTls(dir)) });
    expect(inner).toBeDefined();
    expect(outer.cert).toBe(inner!.cert);
    expect(
      new X509Certificate(outer.cert).verify(new X509Certificate(readFileSync(outer.caPath)).publicKey),
    ).toBe(true);
    expect(readdirSync(dir).filter((entry) => entry.startsWith('gen-'))).toEqual([
      basename(readlinkSync(join(dir, 'current'))),
    ]);
  });

  test('`gateway listen-ca` run four times at once makes one CA, the one all of them print', async () => {
    const runs = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
            execFile(
              process.execPath,
              [bin, 'listen-ca', '--tls-dir', dir],
              { env: { PATH: process.env.PATH, HOME: process.env.HOME } },
              (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
            ),
          ),
      ),
    );
    expect(runs.map((run) => ({ code: run.code, stdout: run.stdout.trim(), stderr: run.stderr }))).toEqual(
      [1, 2, 3, 4].map(() => ({ code: 0, stdout: join(dir, 'ca.pem'), stderr: '' })),
    );
    const tls = ensureListenTls(dir);
    expect(tls.renewed).toBe(false);
    expect(
      new X509Certificate(tls.cert).verify(new X509Certificate(readFileSync(tls.caPath)).publicKey),
    ).toBe(true);
    expect(privateKeysUnder(dir)).toHaveLength(1);
  }, 60_000);
});
