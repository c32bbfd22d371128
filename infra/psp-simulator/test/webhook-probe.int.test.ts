import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { type TLSSocket } from 'node:tls';
import { type TestPki, createTestPki } from '@gateway/testkit-core';
import { probeWebhook } from '../src/psp-profile';

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki.remove());

const servers: Array<{ server: Server | ReturnType<typeof createTcpServer>; sockets: Set<Socket> }> = [];
afterEach(async () => {
  for (const { server, sockets } of servers.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listening(
  server: Server | ReturnType<typeof createTcpServer>,
  scheme: string,
): Promise<string> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => sockets.add(socket));
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/webhook?token=t`;
}

/**
 * An HTTPS receiver with the test CA's server certificate (unless `options` says otherwise), answering 200; one that
 * asks for a client certificate without requiring it answers 403 to a client without one.
 */
const httpsReceiver = (options: ServerOptions = {}) =>
  listening(
    createHttpsServer({ cert: pki.server.cert, key: pki.server.key, ...options }, (req, res) => {
      const unauthorized = options.requestCert === true && !(req.socket as TLSSocket).authorized;
      res.writeHead(unauthorized ? 403 : 200).end();
    }),
    'https',
  );

const requiringCertificate = () => ({ ca: pki.caPem, requestCert: true, rejectUnauthorized: true });
/** What the simulator in Efí's mode probes with: trusting the test CA, holding the bank's client certificate. */
const bankTls = () => ({ ca: pki.caPem, cert: pki.client.cert, key: pki.client.key });

describe("Efí's check of a webhook before registering it", () => {
  it('passes a receiver that ends the TLS 1.3 handshake for the missing client certificate', async () => {
    const url = await httpsReceiver(requiringCertificate());
    expect(await probeWebhook(url, { ca: pki.caPem })).toBe('requires-certificate');
  });

  it("passes a TLS 1.2 receiver's handshake failure only once the bank's own certificate gets through", async () => {
    const url = await httpsReceiver({ ...requiringCertificate(), maxVersion: 'TLSv1.2' });
    expect(await probeWebhook(url, bankTls())).toBe('requires-certificate');
    // Without a certificate to confirm with, a handshake failure proves nothing.
    expect(await probeWebhook(url, { ca: pki.caPem })).toBe('unreachable');
  });

  it("passes a receiver that answers 403 without a client certificate, as Efí's reference receiver does", async () => {
    const url = await httpsReceiver({ ca: pki.caPem, requestCert: true, rejectUnauthorized: false });
    expect(await probeWebhook(url, { ca: pki.caPem })).toBe('requires-certificate');
  });

  it('refuses an HTTPS receiver that takes a connection without a client certificate', async () => {
    expect(await probeWebhook(await httpsReceiver(), { ca: pki.caPem })).toBe('accepts-without-certificate');
  });

  it('refuses a receiver whose server certificate it does not trust, though the handshake failed', async () => {
    const url = await httpsReceiver({ cert: pki.untrusted.cert, key: pki.untrusted.key });
    expect(await probeWebhook(url, bankTls())).toBe('untrusted-server-certificate');
  });

  it('refuses a receiver that never answers, in the handshake or after it (a timeout is no refusal)', async () => {
    const silentTcp = await listening(
      createTcpServer(() => undefined),
      'https',
    );
    const silentHttps = await listening(
      createHttpsServer({ cert: pki.server.cert, key: pki.server.key }, () => undefined),
      'https',
    );
    for (const url of [silentTcp, silentHttps])
      expect(await probeWebhook(url, bankTls(), 300)).toBe('unreachable');
  });

  it('refuses a plain HTTP receiver, even one answering 403', async () => {
    const url = await listening(
      createHttpServer((_req, res) => res.writeHead(403).end()),
      'http',
    );
    expect(await probeWebhook(url, bankTls())).toBe('accepts-without-certificate');
  });
});
