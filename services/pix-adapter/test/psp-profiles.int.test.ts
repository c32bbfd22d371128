import { randomBytes, randomUUID } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { ConfigError } from '@gateway/config';
import { createPspSimulator } from '@gateway/psp-simulator';
import { pspBooksForThisFile } from '@gateway/psp-simulator/test/support/books';
import { PSP_PROFILE_NAMES, type PspProfileName } from '@gateway/contracts';
import { createLogger } from '@gateway/observability';
import { type TestPki, closeAfterEachTest, createTestPki, waitFor } from '@gateway/testkit';
import { type ApiPixClientConfig, ApiPixClient } from '../src/clients/psp/api-pix-client';
import { type PspCallbackItem } from '../src/clients/psp/callback';
import { readClientCertificate } from '../src/clients/psp/client-certificate';
import { PspError } from '../src/clients/psp/psp-error';
import { PSP_PROFILES, type PspProfile } from '../src/domain/psp-profiles';
import { generateTxid } from '../src/domain/txid';
import type { CallbackProcessor } from '../src/application/callback-processor';
import { type CallbackTls, startCallbackServer } from '../src/http/callback-server';

const CREDENTIALS = { clientId: 'profile-client', clientSecret: 'profile-secret' };
/** What the simulated banks expect, and what the adapter is configured with. */
const VALUES = { developerAppKey: 'bb-developer-key-0123456789', accountNumber: '123456789' };
const CALLBACK_TOKEN = 'profile-callback-token-0123456789';
const silent = createLogger('psp-profiles-test', 'silent');
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki.remove());

async function startSimulator(profile: PspProfileName) {
  const pixKey = randomUUID();
  const simulator = createPspSimulator({
    databaseUrl: booksUrl(),
    ...CREDENTIALS,
    pixKey,
    logger: silent,
    callbackRetryDelaysMs: [50, 100, 200],
    profile,
    profileValues: VALUES,
    // As Efí: its callbacks carry a client certificate of its CA (the test CA here), and trust the receiver's.
    callbackTls: { ca: pki.caPem, cert: pki.client.cert, key: pki.client.key },
  });
  const running = await simulator.start(0);
  afterThisTest(running.close);
  return { ...running, app: simulator.app, pixKey };
}

function clientFor(
  baseUrl: string,
  profile: PspProfile,
  overrides: Partial<ApiPixClientConfig> = {},
): ApiPixClient {
  const client = new ApiPixClient(
    {
      baseUrl,
      pathPrefix: '/v2',
      oauthTokenUrl: `${baseUrl}/oauth/token`,
      ...CREDENTIALS,
      profile,
      profileSettings: VALUES,
      timeoutMs: 2000,
      maxRetries: 0,
      ...overrides,
    },
    { logger: silent },
  );
  afterThisTest(() => client.close());
  return client;
}

/** The adapter's own callback listener, recording what it is told; `tls` as configured for the profile. */
async function startReceiver(tls?: CallbackTls) {
  const received: PspCallbackItem[] = [];
  const processor = {
    process: async (items: PspCallbackItem[]) => {
      received.push(...items);
      return items;
    },
  } as unknown as CallbackProcessor;
  const server = await startCallbackServer({
    host: '127.0.0.1',
    port: 0,
    token: CALLBACK_TOKEN,
    ...(tls ? { tls } : {}),
    processor,
    sentPix: async () => undefined,
    logger: silent,
  });
  afterThisTest(() => server.close());
  return { url: `${server.baseUrl}/webhook?token=${CALLBACK_TOKEN}`, received };
}

/** The listener as the profile needs it: over mutual TLS with the PSP's CA where the PSP calls back that way. */
function receiverTlsFor(profile: PspProfile): CallbackTls | undefined {
  return profile.callbackMtls
    ? { cert: pki.server.cert, key: pki.server.key, clientCa: pki.caPem }
    : undefined;
}

const charge = (chave: string) => ({ expiracaoSeconds: 3600, valorCentavos: 2590, chave });
const newTxid = () => generateTxid(randomBytes);

async function refusal(promise: Promise<unknown>): Promise<PspError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PspError)) throw new Error(`expected the PSP to refuse, got ${String(error)}`);
  // A refusal, not an outage: the call reached the bank and the bank said no.
  expect(error.kind).not.toBe('unavailable');
  return error;
}

describe.each(PSP_PROFILE_NAMES)('the %s profile against the simulator in that mode', (name) => {
  const profile = PSP_PROFILES[name];

  it('gets a token, creates and reads a cob, registers the webhook, the paid cob is called back and listed', async () => {
    const psp = await startSimulator(name);
    const client = clientFor(psp.url, profile);
    const receiver = await startReceiver(receiverTlsFor(profile));
    const txid = newTxid();

    const created = await client.createCharge(txid, charge(psp.pixKey));
    expect(created).toMatchObject({ txid, status: 'ATIVA', valor: { original: '25.90' } });
    await expect(client.getCharge(txid)).resolves.toMatchObject({ txid, status: 'ATIVA' });
    await client.registerWebhook(psp.pixKey, receiver.url);
    await client.sandboxPay(txid, null);

    const [pix] = await waitFor(() => receiver.received.length > 0 && receiver.received, {
      what: `the ${name} callback`,
    });
    expect(pix).toMatchObject({ txid, valorCentavos: 2590 });
    await expect(client.getCharge(txid)).resolves.toMatchObject({ status: 'CONCLUIDA' });
    const listed = await client.listReceivedPix(new Date(Date.now() - 60_000), new Date(Date.now() + 60_000));
    expect(listed.map((received) => received.endToEndId)).toEqual([pix!.endToEndId]);
  });
});

describe('what each simulated bank refuses', () => {
  const bcb = PSP_PROFILES.bcb;

  it.each(['efi', 'bb', 'itau', 'sicoob', 'inter', 'santander'] as const)(
    'the baseline client is refused by the %s simulator',
    async (name) => {
      const psp = await startSimulator(name);
      await refusal(clientFor(psp.url, bcb).createCharge(newTxid(), charge(psp.pixKey)));
    },
  );

  it('BB refuses a call whose gw-dev-app-key is not its own', async () => {
    const psp = await startSimulator('bb');
    const client = clientFor(psp.url, PSP_PROFILES.bb, {
      profileSettings: { developerAppKey: 'another-application' },
    });
    const error = await refusal(client.getCharge(newTxid()));
    expect(error.kind).toBe('unauthorized');
  });

  it('Inter refuses a call without x-conta-corrente, even with a good token', async () => {
    const psp = await startSimulator('inter');
    const client = clientFor(psp.url, { ...PSP_PROFILES.inter, extraHeaders: {} });
    const error = await refusal(client.createCharge(newTxid(), charge(psp.pixKey)));
    expect(error).toMatchObject({ kind: 'invalid', status: 400 });
  });

  it('Itaú refuses the token to credentials in HTTP Basic, and Sicoob to a client without its client_id', async () => {
    const itau = await startSimulator('itau');
    const basic = await refusal(
      clientFor(itau.url, { ...PSP_PROFILES.itau, tokenRequest: 'basic' }).getCharge(newTxid()),
    );
    expect(basic).toMatchObject({ kind: 'unauthorized', status: 401 });
    const sicoob = await startSimulator('sicoob');
    const wrongId = clientFor(sicoob.url, PSP_PROFILES.sicoob, { clientId: 'someone-else' });
    expect(await refusal(wrongId.getCharge(newTxid()))).toMatchObject({ kind: 'unauthorized' });
  });

  it('Efí refuses a token request whose body is a form, not JSON; Sicoob a call without x-sicoob-clientid', async () => {
    const efi = await startSimulator('efi');
    const form = clientFor(efi.url, { ...PSP_PROFILES.efi, tokenBody: 'form' });
    expect(await refusal(form.getCharge(newTxid()))).toMatchObject({ kind: 'invalid', status: 400 });
    const sicoob = await startSimulator('sicoob');
    const withoutHeader = clientFor(sicoob.url, { ...PSP_PROFILES.sicoob, extraHeaders: {} });
    expect(await refusal(withoutHeader.getCharge(newTxid()))).toMatchObject({ kind: 'invalid', status: 400 });
  });

  it('Santander refuses a token request without grant_type in its query', async () => {
    const psp = await startSimulator('santander');
    const client = clientFor(psp.url, { ...PSP_PROFILES.santander, tokenQuery: {} });
    expect(await refusal(client.getCharge(newTxid()))).toMatchObject({ kind: 'invalid', status: 400 });
  });

  it('Efí refuses to register a receiver that accepts a connection without a client certificate', async () => {
    const psp = await startSimulator('efi');
    const client = clientFor(psp.url, PSP_PROFILES.efi);
    const plain = await startReceiver();
    const tlsOnly = await startReceiver({ cert: pki.server.cert, key: pki.server.key });

    for (const receiver of [plain, tlsOnly]) {
      const error = await refusal(client.registerWebhook(psp.pixKey, receiver.url));
      expect(error).toMatchObject({ kind: 'invalid', status: 400 });
      expect(error.message).toContain('TLS mútuo');
    }
  });

  it('the baseline simulator takes the baseline client (its behaviour unchanged)', async () => {
    const psp = await startSimulator('bcb');
    await expect(clientFor(psp.url, bcb).createCharge(newTxid(), charge(psp.pixKey))).resolves.toMatchObject({
      status: 'ATIVA',
    });
  });
});

/**
 * The simulator behind HTTPS that asks for a client certificate of the test CA, as the banks' gateways do; it refuses a
 * connection without one in the handshake unless `rejectUnauthorized` is false (the bank's token endpoint then judges).
 */
async function mutualTlsPsp(profile: PspProfileName = 'efi', rejectUnauthorized = true) {
  const psp = await startSimulator(profile);
  const server = createHttpsServer(
    {
      cert: pki.server.cert,
      key: pki.server.key,
      ca: pki.caPem,
      requestCert: true,
      rejectUnauthorized,
    },
    psp.app,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterThisTest(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { ...psp, httpsUrl: `https://localhost:${(server.address() as AddressInfo).port}` };
}

describe("Sicoob's token for a client id alone, served over TLS", () => {
  it('is refused to a request without a client certificate, or with one of another CA, and given with a good one', async () => {
    const psp = await mutualTlsPsp('sicoob', false);
    const agent = new Agent({ connect: { ca: pki.caPem } });
    afterThisTest(() => agent.close());
    const bare = await request(`${psp.httpsUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: CREDENTIALS.clientId,
      }).toString(),
      dispatcher: agent,
    });
    expect(bare.statusCode).toBe(401);
    expect(await bare.body.json()).toEqual({ error: 'invalid_client' });

    const foreign = { cert: pki.foreignClient.cert, key: pki.foreignClient.key, ca: pki.caPem };
    const otherCa = clientFor(psp.httpsUrl, PSP_PROFILES.sicoob, { mTLS: foreign });
    expect(await refusal(otherCa.getCharge(newTxid()))).toMatchObject({ kind: 'unauthorized' });

    const good = { cert: pki.client.cert, key: pki.client.key, ca: pki.caPem };
    const client = clientFor(psp.httpsUrl, PSP_PROFILES.sicoob, { mTLS: good });
    await expect(client.createCharge(newTxid(), charge(psp.pixKey))).resolves.toMatchObject({
      status: 'ATIVA',
    });
  });
});

describe('a client certificate as a PKCS#12 file with a passphrase', () => {
  it('loads with its passphrase and authenticates the client to a PSP requiring mutual TLS', async () => {
    const psp = await mutualTlsPsp();
    const mTLS = readClientCertificate({
      pfx: pki.client.p12Path,
      passphrase: pki.client.passphrase,
      ca: pki.caPath,
    });
    expect(mTLS).toHaveProperty('pfx');
    const client = clientFor(psp.httpsUrl, PSP_PROFILES.efi, { mTLS });
    await expect(client.createCharge(newTxid(), charge(psp.pixKey))).resolves.toMatchObject({
      status: 'ATIVA',
    });
  });

  it('refuses a wrong passphrase at start, as a configuration error that names no passphrase', () => {
    const wrongPassphrase = 'not-the-passphrase';
    let error: unknown;
    try {
      readClientCertificate({ pfx: pki.client.p12Path, passphrase: wrongPassphrase, ca: pki.caPath });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ variables: ['PSP_MTLS_PFX', 'PSP_MTLS_PASSPHRASE'] });
    expect(String(error)).toMatch(/PSP_MTLS_PFX does not open with PSP_MTLS_PASSPHRASE/);
    expect(String(error)).not.toContain(wrongPassphrase);
    expect(String(error)).not.toContain(pki.client.passphrase);
  });

  it('gets nowhere with a certificate of another CA: the PSP is unavailable, and no key is named', async () => {
    const psp = await mutualTlsPsp();
    const otherCa = { cert: pki.foreignClient.cert, key: pki.foreignClient.key, ca: pki.caPem };
    const error = await clientFor(psp.httpsUrl, PSP_PROFILES.efi, { mTLS: otherCa })
      .getCharge(newTxid())
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(PspError);
    expect(error).toMatchObject({ kind: 'unavailable' });
    expect(String(error)).not.toContain(pki.foreignClient.key.split('\n')[1]);
  });
});
