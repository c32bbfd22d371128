import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { ConfigError } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { type TestPki, closeAfterEachTest, createTestPki } from '@gateway/testkit';
import type { CallbackProcessor } from '../src/application/callback-processor';
import { type PspCallbackItem } from '../src/clients/psp/callback';
import { readCallbackTls, startCallbackServer } from '../src/http/callback-server';

const TOKEN = 'mtls-callback-token-0123456789';
const silent = createLogger('callback-mtls-test', 'silent');
const afterThisTest = closeAfterEachTest();
const pixCallback = {
  pix: [
    {
      endToEndId: 'E12345678202501011200abcdefghijk',
      txid: 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6',
      valor: '110.00',
      horario: '2025-01-01T12:00:00.000Z',
    },
  ],
};

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki.remove());

/** The callback listener requiring client certificates of the test CA (standing in for the PSP's CA). */
async function startMutualTlsListener() {
  const processed: PspCallbackItem[] = [];
  const processor = {
    process: async (items: PspCallbackItem[]) => {
      processed.push(...items);
      return items;
    },
  } as unknown as CallbackProcessor;
  const server = await startCallbackServer({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    tls: { cert: pki.server.cert, key: pki.server.key, clientCa: pki.caPem },
    processor,
    sentPix: async () => undefined,
    logger: silent,
  });
  afterThisTest(() => server.close());
  return { baseUrl: server.baseUrl, processed };
}

/** POSTs a callback as a PSP would, presenting `certificate` (or none); trusts the listener's server certificate. */
async function callBack(
  baseUrl: string,
  certificate: { cert: string; key: string } | undefined,
  token = TOKEN,
): Promise<number> {
  const agent = new Agent({ connect: { ca: pki.caPem, ...certificate } });
  afterThisTest(() => agent.close());
  const response = await request(`${baseUrl}/webhook/pix?token=${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(pixCallback),
    dispatcher: agent,
  });
  await response.body.dump();
  return response.statusCode;
}

describe('the callback listener over mutual TLS', () => {
  it('serves HTTPS and takes a callback from a client certificate of the configured CA with the token', async () => {
    const listener = await startMutualTlsListener();
    expect(listener.baseUrl).toMatch(/^https:\/\//);

    expect(await callBack(listener.baseUrl, pki.client)).toBe(200);
    expect(listener.processed.map((item) => item.valorCentavos)).toEqual([11000]);
  });

  it('refuses a connection without a client certificate, or with one of another CA, in the handshake', async () => {
    const listener = await startMutualTlsListener();

    await expect(callBack(listener.baseUrl, undefined)).rejects.toThrow();
    await expect(callBack(listener.baseUrl, pki.foreignClient)).rejects.toThrow();
    expect(listener.processed).toEqual([]);
  });

  it('still requires the token from a client with a good certificate', async () => {
    const listener = await startMutualTlsListener();

    expect(await callBack(listener.baseUrl, pki.client, 'not-the-token-0123456789')).toBe(401);
    expect(listener.processed).toEqual([]);
  });
});

describe("the callback listener's certificate files", () => {
  /** Writes `content` to a file of the test PKI's directory; answers its path. */
  const file = (name: string, content: string): string => {
    const path = join(pki.caPath, '..', name);
    writeFileSync(path, content);
    return path;
  };
  const refusal = (files: { cert: string; key: string; clientCa?: string }): unknown => {
    try {
      readCallbackTls(files);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('are read when each holds what it is for, the client CA requiring certificates', () => {
    const tls = readCallbackTls({
      cert: file('good.crt', pki.server.cert),
      key: file('good.key', pki.server.key),
      clientCa: pki.caPath,
    });
    expect(tls).toEqual({ cert: pki.server.cert, key: pki.server.key, clientCa: pki.caPem });
  });

  it('refuse to start with an empty client CA, or one holding no PEM certificate, never dropping mutual TLS', () => {
    const cert = file('server.crt', pki.server.cert);
    const key = file('server.key', pki.server.key);
    for (const clientCa of [file('empty-ca.crt', ''), file('not-a-ca.crt', 'not a certificate\n')]) {
      const error = refusal({ cert, key, clientCa });
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).toMatchObject({ variables: ['CALLBACK_CLIENT_CA'] });
      expect(String(error)).toMatch(/CALLBACK_CLIENT_CA holds no PEM certificate/);
    }
  });

  it("refuse to start with an empty certificate or key, or a key that is not the certificate's, naming no key", () => {
    const cert = file('pair.crt', pki.server.cert);
    const key = file('pair.key', pki.server.key);
    const empty = file('empty.pem', '');
    expect(refusal({ cert: empty, key })).toMatchObject({ variables: ['CALLBACK_TLS_CERT'] });
    expect(refusal({ cert, key: empty })).toMatchObject({ variables: ['CALLBACK_TLS_KEY'] });
    const otherKey = file('other.key', pki.client.key);
    const mismatch = refusal({ cert, key: otherKey });
    expect(mismatch).toBeInstanceOf(ConfigError);
    expect(String(mismatch)).toMatch(/CALLBACK_TLS_KEY is not the private key of CALLBACK_TLS_CERT/);
    expect(String(mismatch)).not.toContain(pki.client.key.split('\n')[1]);
  });
});
