import { randomBytes, randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import express from 'express';
import { createPspSimulator } from '@gateway/psp-simulator';
import { fetchPayload } from '@gateway/psp-simulator/test/support/payload-location';
import { createLogger, metricsRegistry } from '@gateway/observability';
import { closeAfterEachTest, waitFor } from '@gateway/testkit';
import { pspBooksForThisFile } from '@gateway/psp-simulator/test/support/books';
import { verifyPspBrCode } from '../src/domain/br-code';
import { generateTxid } from '../src/domain/txid';
import {
  API_PIX_DUE_SCOPES,
  API_PIX_SCOPES,
  ApiPixClient,
  type ApiPixClientConfig,
  type ApiPixClientDeps,
} from '../src/clients/psp/api-pix-client';
import { parsePspCallback } from '../src/clients/psp/callback';
import { cobLocation } from '../src/clients/psp/cob';
import { PspError } from '../src/clients/psp/psp-error';
import { aCob } from './support/cob';

/** The simulator's waits between attempts at a callback the receiver failed. */
const CALLBACK_RETRY_DELAYS_MS = [50, 100, 200];
const CREDENTIALS = { clientId: 'test-client', clientSecret: 'test-secret' };
const silent = createLogger('psp-simulator-test', 'silent');
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();

async function startSimulator(pathPrefix = '/v2', options: { omitTokenExpiresIn?: boolean } = {}) {
  const pixKey = randomUUID();
  const simulator = createPspSimulator({
    databaseUrl: booksUrl(),
    ...CREDENTIALS,
    pixKey,
    pathPrefix,
    logger: silent,
    callbackRetryDelaysMs: CALLBACK_RETRY_DELAYS_MS,
    ...options,
  });
  const running = await simulator.start(0);
  afterThisTest(running.close);
  return { ...running, app: simulator.app, pixKey, pathPrefix };
}

function clientFor(
  baseUrl: string,
  overrides: Partial<ApiPixClientConfig> = {},
  deps: ApiPixClientDeps = {},
) {
  const client = new ApiPixClient(
    {
      baseUrl,
      pathPrefix: '/v2',
      oauthTokenUrl: `${baseUrl}/oauth/token`,
      ...CREDENTIALS,
      timeoutMs: 2000,
      maxRetries: 3,
      ...overrides,
    },
    { retryBaseDelayMs: 5, logger: silent, ...deps },
  );
  afterThisTest(() => client.close());
  return client;
}

function listen(server: Server): Promise<string> {
  afterThisTest(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

/** The URL of a port nothing listens on any more: a PSP that refuses connections. */
async function closedPort(): Promise<string> {
  const server = createServer();
  const url = await new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
  await new Promise((resolve) => server.close(resolve));
  return url;
}

/** Calls a sandbox operation of the simulator the way the payment service's simulate endpoint will. */
async function sandbox(url: string, path: string, body: unknown = {}): Promise<Response> {
  const tokenResponse = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CREDENTIALS.clientId}:${CREDENTIALS.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function captureError(promise: Promise<unknown>): Promise<PspError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PspError)) throw new Error(`expected a PspError, got ${String(error)}`);
  return error;
}

const newTxid = () => generateTxid(randomBytes);
const charge = (chave: string, valorCentavos = 12345) => ({ expiracaoSeconds: 3600, valorCentavos, chave });

describe('ApiPixClient against the PSP simulator', () => {
  it('creates a cob whose pixCopiaECola is a valid BR Code for its scheme-less location', async () => {
    const psp = await startSimulator();
    const txid = newTxid();
    const cob = await clientFor(psp.url).createCharge(txid, {
      ...charge(psp.pixKey),
      solicitacaoPagador: 'Pedido 1',
    });

    expect(cob).toMatchObject({
      txid,
      revisao: 0,
      status: 'ATIVA',
      valor: { original: '123.45' },
      chave: psp.pixKey,
    });
    const location = cobLocation(cob)!;
    expect(location).toMatch(/^127\.0\.0\.1:\d+\/qr\/v2\/[0-9a-f]{32}$/);
    expect(verifyPspBrCode(cob.pixCopiaECola!, location)).toMatchObject({ ok: true });
  });

  it('asks for one OAuth token and reuses it across calls, even concurrent ones', async () => {
    const psp = await startSimulator();
    let tokenRequests = 0;
    const counting = express();
    counting.use((req, _res, next) => {
      if (req.path === '/oauth/token') tokenRequests++;
      next();
    }, psp.app);
    const url = await listen(createServer(counting));
    const client = clientFor(url);
    const txid = newTxid();

    await Promise.all([
      client.createCharge(txid, charge(psp.pixKey)),
      client.registerWebhook(psp.pixKey, url),
    ]);
    await Promise.all([client.getCharge(txid), client.getCharge(txid), client.updateChargeAmount(txid, 500)]);

    expect(tokenRequests).toBe(1);
  });

  it('when the answer to PUT /cob is lost, the retry meets the 400 a PSP gives and reads the cob back', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url, { maxRetries: 2 });
    const txid = newTxid();
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PUT', path: /\/cob\// });

    const cob = await client.createCharge(txid, charge(psp.pixKey, 4200));

    expect(cob).toMatchObject({ txid, revisao: 0, status: 'ATIVA', valor: { original: '42.00' } });
    expect(await client.getCharge(txid)).toEqual(cob);
  });

  it('when the answer to a sandbox payment is lost, the retry finds the cob concluded by the first: paid once', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url, { maxRetries: 2 });
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 4200));
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'POST', path: /\/cob\/pagar\// });

    await client.sandboxPay(txid, null);

    const cob = await client.getCharge(txid);
    expect(cob.status).toBe('CONCLUIDA');
    expect(cob.pix?.map((pix) => pix.valor)).toEqual(['42.00']);
  });

  it('a sandbox payment into a cob still ATIVA that the PSP refuses stays refused', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 4200));

    await expect(client.sandboxPay(txid, 100)).rejects.toMatchObject({ kind: 'invalid' });
    expect((await client.getCharge(txid)).status).toBe('ATIVA');
  });

  it('a rate-limited or failing PSP is retried until it answers', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url, { maxRetries: 3 });
    const txid = newTxid();
    psp.faults.inject({ fault: { kind: 'rate-limit', retryAfterSeconds: 0 }, count: 1 });
    psp.faults.inject({ fault: { kind: 'rate-limit' }, count: 1 });
    psp.faults.inject({ fault: { kind: 'server-error' }, count: 1 });

    expect(await client.createCharge(txid, charge(psp.pixKey))).toMatchObject({ txid });
  });

  it('asks for the scopes of its operations, and keeps a token the PSP gave without expires_in', async () => {
    const psp = await startSimulator('/v2', { omitTokenExpiresIn: true });
    const tokenRequests: string[] = [];
    const recording = express();
    recording.use('/oauth/token', express.text({ type: () => true }), (req, _res, next) => {
      tokenRequests.push(String(req.body));
      // Already read: handed on parsed, as the token endpoint's own parser would have.
      req.body = Object.fromEntries(new URLSearchParams(String(req.body)));
      next();
    });
    recording.use((req, res) => psp.app(req, res));
    const url = await listen(createServer(recording));
    const client = clientFor(url);
    const txid = newTxid();

    await client.registerWebhook(psp.pixKey, url);
    await client.createCharge(txid, charge(psp.pixKey));
    await client.updateChargeAmount(txid, 500, (await client.createLocation()).id);
    await client.getCharge(txid);

    expect(tokenRequests).toHaveLength(1);
    expect(new URLSearchParams(tokenRequests[0]).get('scope')).toBe(
      'cob.write cob.read payloadlocation.write webhook.write pix.write pix.read',
    );
  });

  it('asks for the due-date scopes in a token of their own: a PSP that never granted them still opens immediate charges', async () => {
    const psp = await startSimulator();
    const scopesAsked: string[] = [];
    let grantsDueDates = false;
    const recording = express();
    recording.use('/oauth/token', express.text({ type: () => true }), (req, res, next) => {
      const scope = new URLSearchParams(String(req.body)).get('scope') ?? '';
      scopesAsked.push(scope);
      // An OAuth server refuses a token asking for a scope the application was not granted (RFC 6749 5.2).
      if (!grantsDueDates && scope.split(' ').includes('cobv.write')) {
        res.status(400).json({ error: 'invalid_scope' });
        return;
      }
      req.body = Object.fromEntries(new URLSearchParams(String(req.body)));
      next();
    });
    recording.use((req, res) => psp.app(req, res));
    const client = clientFor(await listen(createServer(recording)));
    const dueCharge = {
      calendario: {
        dataDeVencimento: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
        validadeAposVencimento: 30,
      },
      valor: { original: '10.00' },
      chave: psp.pixKey,
      devedor: { cpf: '12345678909', nome: 'Fulano de Tal' },
    };

    expect(await client.createCharge(newTxid(), charge(psp.pixKey))).toMatchObject({ status: 'ATIVA' });
    await expect(client.createDueCharge(newTxid(), dueCharge)).rejects.toBeInstanceOf(Error);
    // Immediate charges go on with their own token, whatever became of the due-date one.
    expect(await client.createCharge(newTxid(), charge(psp.pixKey))).toMatchObject({ status: 'ATIVA' });
    grantsDueDates = true;
    expect(await client.createDueCharge(newTxid(), dueCharge)).toMatchObject({ status: 'ATIVA' });
    expect(new Set(scopesAsked)).toEqual(new Set([API_PIX_SCOPES, API_PIX_DUE_SCOPES]));
    expect(API_PIX_SCOPES.split(' ')).not.toContain('cobv.write');
    expect(API_PIX_DUE_SCOPES.split(' ')).toEqual(expect.arrayContaining(['cobv.write', 'cobv.read']));
  });

  it('revises the amount with PATCH, bumping revisao, and GET shows the revision', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 1000));

    const revised = await client.updateChargeAmount(txid, 2550);
    const read = await client.getCharge(txid);

    expect(revised).toMatchObject({ revisao: 1, valor: { original: '25.50' }, status: 'ATIVA' });
    expect(read).toMatchObject({ revisao: 1, valor: { original: '25.50' } });
  });

  it('creates a location and moves the cob there with its new amount in one PATCH; the old one stops serving it', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    const created = await client.createCharge(txid, charge(psp.pixKey, 1000));
    const oldLocation = cobLocation(created)!;

    const location = await client.createLocation();
    const unlinkedPayload = await fetch(`http://${location.location}`);
    const moved = await client.updateChargeAmount(txid, 2550, location.id);
    const newPayload = await fetchPayload(location.location);
    const oldPayload = await fetch(`http://${oldLocation}`);

    expect(location).toMatchObject({ id: expect.any(Number), tipoCob: 'cob' });
    expect(location.location).toMatch(/^127\.0\.0\.1:\d+\/qr\/v2\/[0-9a-f]{32}$/);
    expect(location.location).not.toBe(oldLocation);
    expect(unlinkedPayload.status).toBe(404);
    expect(moved).toMatchObject({
      revisao: 1,
      valor: { original: '25.50' },
      loc: { id: location.id, location: location.location },
      location: location.location,
    });
    expect(moved.pixCopiaECola).not.toBe(created.pixCopiaECola);
    expect(verifyPspBrCode(moved.pixCopiaECola!, location.location)).toMatchObject({ ok: true });
    expect(newPayload).toMatchObject({ txid, revisao: 1, valor: { original: '25.50' } });
    expect(oldPayload.status).toBe(404);
    expect(await client.getCharge(txid)).toMatchObject({ revisao: 1, loc: { id: location.id } });
  });

  it('refuses to move a cob to an unknown location or to one another cob holds, changing nothing', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    const other = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 1000));
    const taken = await client.createCharge(other, charge(psp.pixKey, 2000));

    const unknown = await captureError(client.updateChargeAmount(txid, 1500, 999_999));
    const held = await captureError(client.updateChargeAmount(txid, 1500, taken.loc!.id!));

    for (const error of [unknown, held]) {
      expect(error).toMatchObject({ kind: 'invalid', status: 400 });
      expect(error.extra.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.loc.id' })]);
    }
    expect(await client.getCharge(txid)).toMatchObject({ revisao: 0, valor: { original: '10.00' } });
    expect(await client.getCharge(other)).toMatchObject({ revisao: 0, loc: { id: taken.loc!.id } });
  });

  it('when the same create is sent twice, the second returns the charge already at the PSP', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    const first = await client.createCharge(txid, charge(psp.pixKey));

    const replay = await client.createCharge(txid, charge(psp.pixKey));
    const replayWithOtherExpiry = await client.createCharge(txid, {
      ...charge(psp.pixKey),
      expiracaoSeconds: 60,
    });

    expect(replay).toEqual(first);
    expect(replayWithOtherExpiry).toEqual(first);
  });

  it('when the txid already holds a different amount, create fails as a conflict (the PSP answered 400)', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 1000));

    const error = await captureError(client.createCharge(txid, charge(psp.pixKey, 2000)));

    expect(error).toMatchObject({ kind: 'conflict', status: 400 });
  });

  it('when the txid holds a cob that was removed, create fails as a conflict instead of reusing it', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 1000));
    await client.sandboxRemove(txid);

    const error = await captureError(client.createCharge(txid, charge(psp.pixKey, 1000)));

    expect(error).toMatchObject({ kind: 'conflict', status: 400 });
  });

  it('maps an unknown txid to not_found and a foreign Pix key to invalid with its violations', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);

    const missing = await captureError(client.getCharge(newTxid()));
    const foreignKey = await captureError(client.createCharge(newTxid(), charge('someone-else@example.com')));

    expect(missing).toMatchObject({ kind: 'not_found', status: 404 });
    expect(missing.extra.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobNaoEncontrado');
    expect(foreignKey).toMatchObject({ kind: 'invalid', status: 400 });
    expect(foreignKey.extra.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.chave' })]);
  });

  it('when the PSP callback arrives, it goes to <webhookUrl>/pix with a body the parser accepts', async () => {
    const psp = await startSimulator();
    const received: Array<{ path: string; body: unknown }> = [];
    const receiver = express().use(express.json());
    receiver.post('/hooks/pix', (req, res) => {
      received.push({ path: req.path, body: req.body });
      res.status(200).end();
    });
    const receiverUrl = await listen(createServer(receiver));
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.registerWebhook(psp.pixKey, `${receiverUrl}/hooks`);
    await client.createCharge(txid, charge(psp.pixKey, 4321));

    const payment = await sandbox(psp.url, `/v2/cob/pagar/${txid}`);
    const callback = await waitFor(() => received[0], { what: 'the callback' });

    expect(payment.status).toBe(200);
    const parsed = parsePspCallback(callback.body);
    expect(parsed.rejected).toEqual([]);
    expect(parsed.items).toEqual([expect.objectContaining({ txid, valor: '43.21', valorCentavos: 4321 })]);
    expect(parsed.items[0]!.endToEndId).toMatch(/^E\d{8}\d{12}[a-zA-Z0-9]{11}$/);
    const paid = await client.getCharge(txid);
    expect(paid.status).toBe('CONCLUIDA');
    expect(paid.pix).toEqual([expect.objectContaining({ endToEndId: parsed.items[0]!.endToEndId })]);
  });

  it('when the receiver fails, the simulator retries the callback until it is accepted', async () => {
    const psp = await startSimulator();
    let attempts = 0;
    const receiver = express().use(express.json());
    receiver.post('/pix', (_req, res) => {
      attempts++;
      res.status(attempts < 3 ? 503 : 204).end();
    });
    const receiverUrl = await listen(createServer(receiver));
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.registerWebhook(psp.pixKey, receiverUrl);
    await client.createCharge(txid, charge(psp.pixKey));

    await sandbox(psp.url, `/v2/cob/pagar/${txid}`);

    // The callback's run ends once the simulator's sender is done with it: it sends nothing more after that.
    await waitFor(() => psp.callbackRunsEnded() === 1, { what: 'the callback run ended' });
    expect(attempts).toBe(3);
  });

  it('a fixed-amount cob takes one Pix of its amount: another amount, or a second Pix, is refused', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 1000));

    const partial = await sandbox(psp.url, `/v2/cob/pagar/${txid}`, { valor: '4.00' });
    const full = await sandbox(psp.url, `/v2/cob/pagar/${txid}`, { valor: '10.00' });
    const again = await sandbox(psp.url, `/v2/cob/pagar/${txid}`, { valor: '10.00' });

    expect([partial.status, full.status, again.status]).toEqual([400, 200, 400]);
    expect(await client.getCharge(txid)).toMatchObject({ status: 'CONCLUIDA', pix: [{ valor: '10.00' }] });
  });

  it('once the payer may choose the amount (modalidadeAlteracao 1), one Pix of any amount concludes the cob', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey, 1000));

    await client.letPayerChooseAmount(txid, 1000);
    const partial = await sandbox(psp.url, `/v2/cob/pagar/${txid}`, { valor: '4.00' });
    const rest = await sandbox(psp.url, `/v2/cob/pagar/${txid}`, { valor: '6.00' });

    expect([partial.status, rest.status]).toEqual([200, 400]);
    expect(await client.getCharge(txid)).toMatchObject({
      revisao: 1,
      status: 'CONCLUIDA',
      valor: { original: '10.00', modalidadeAlteracao: 1 },
      pix: [{ valor: '4.00' }],
    });
  });

  it('rejects a PATCH after the cob is CONCLUIDA, as invalid', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey));
    await sandbox(psp.url, `/v2/cob/pagar/${txid}`);

    const location = await client.createLocation();
    const error = await captureError(client.updateChargeAmount(txid, 999, location.id));

    expect(error).toMatchObject({ kind: 'invalid', status: 400 });
    expect(error.detail).toContain('CONCLUIDA');
    expect(await client.getCharge(txid)).toMatchObject({
      valor: { original: '123.45' },
      location: expect.not.stringContaining(location.location),
    });
  });

  it('a charge removed by the PSP can be neither paid nor revised', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createCharge(txid, charge(psp.pixKey));

    const removal = await sandbox(psp.url, `/v2/cob/${txid}/expirar`);
    const payment = await sandbox(psp.url, `/v2/cob/pagar/${txid}`);

    expect(removal.status).toBe(200);
    expect(payment.status).toBe(400);
    expect(payment.headers.get('content-type')).toContain('application/problem+json');
    expect((await client.getCharge(txid)).status).toBe('REMOVIDA_PELO_PSP');
    expect(await captureError(client.updateChargeAmount(txid, 1))).toMatchObject({ kind: 'invalid' });
  });

  it('works with a PSP that mounts API Pix under /pix/v2; its location serves the signed payload', async () => {
    const psp = await startSimulator('/pix/v2');
    const client = clientFor(psp.url, { pathPrefix: '/pix/v2' });
    const txid = newTxid();

    const cob = await client.createCharge(txid, charge(psp.pixKey, 777));
    const location = cobLocation(cob)!;
    const payload = await fetchPayload(location);

    expect(verifyPspBrCode(cob.pixCopiaECola!, location).ok).toBe(true);
    expect(payload).toMatchObject({ txid, valor: { original: '7.77' }, status: 'ATIVA' });
  });

  it('refuses wrong client credentials as unauthorized', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url, { clientSecret: 'wrong' });

    expect(await captureError(client.getCharge(newTxid()))).toMatchObject({
      kind: 'unauthorized',
      status: 401,
    });
  });
});

/** `pix_psp_request_duration_seconds` counts by "operation outcome", as this process's registry has them. */
async function pspExchanges(): Promise<Map<string, number>> {
  const histogram = await metricsRegistry.getSingleMetric('pix_psp_request_duration_seconds')?.get();
  return new Map(
    (histogram?.values ?? [])
      .filter(
        (value) => (value as { metricName?: string }).metricName === 'pix_psp_request_duration_seconds_count',
      )
      .map((value) => [`${value.labels.operation} ${value.labels.outcome}`, value.value]),
  );
}

/** A scripted PSP: each API call takes the next canned reply; the token endpoint always works. */
async function scriptedPsp(
  replies: Array<{ status: number; body?: unknown; headers?: Record<string, string> }>,
) {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/oauth/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 300 }));
      return;
    }
    calls.push(`${req.method} ${req.url}`);
    const reply = replies.shift() ?? { status: 500 };
    const contentType = reply.status >= 400 ? 'application/problem+json' : 'application/json';
    res.writeHead(reply.status, { 'content-type': contentType, ...reply.headers });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  });
  return { url: await listen(server), calls };
}

describe('ApiPixClient retries and error mapping', () => {
  it('retries a 503 and returns the cob the PSP answers next', async () => {
    const txid = newTxid();
    const psp = await scriptedPsp([
      { status: 503, body: { title: 'Serviço indisponível' } },
      { status: 200, body: aCob({ txid }) },
    ]);
    const delays: number[] = [];
    const client = clientFor(psp.url, {}, { sleep: async (ms) => void delays.push(ms) });

    const cob = await client.getCharge(txid);

    expect(cob.txid).toBe(txid);
    expect(psp.calls).toHaveLength(2);
    expect(delays).toHaveLength(1);
  });

  it('waits at least Retry-After seconds after a 429', async () => {
    const txid = newTxid();
    const psp = await scriptedPsp([
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 200, body: aCob({ txid }) },
    ]);
    const delays: number[] = [];
    const client = clientFor(
      psp.url,
      {},
      { sleep: async (ms) => void delays.push(ms), retryMaxDelayMs: 10_000 },
    );

    await client.getCharge(txid);

    expect(delays).toEqual([2000]);
  });

  it('backs off exponentially with jitter and gives up after maxRetries', async () => {
    const psp = await scriptedPsp([]);
    const delays: number[] = [];
    const client = clientFor(
      psp.url,
      { maxRetries: 3 },
      { sleep: async (ms) => void delays.push(ms), random: () => 0.5, retryBaseDelayMs: 100 },
    );

    const error = await captureError(client.getCharge(newTxid()));

    expect(error).toMatchObject({ kind: 'unavailable', status: 500 });
    expect(psp.calls).toHaveLength(4);
    expect(delays).toEqual([50, 100, 200]);
  });

  it('does not retry a 4xx and maps the {nome, mensagem} form', async () => {
    const psp = await scriptedPsp([
      { status: 400, body: { nome: 'valor_invalido', mensagem: 'Valor acima do limite' } },
    ]);
    const client = clientFor(psp.url);

    const error = await captureError(client.updateChargeAmount(newTxid(), 100));

    expect(error).toMatchObject({ kind: 'invalid', status: 400 });
    expect(error.detail).toContain('Valor acima do limite');
    expect(psp.calls).toHaveLength(1);
  });

  it('maps problem+json title, detail and violacoes into the error, once the PSP has no cob under the txid', async () => {
    const psp = await scriptedPsp([
      {
        status: 400,
        body: {
          type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
          title: 'Cobrança inválida.',
          status: 400,
          detail: 'A requisição não respeita o schema.',
          violacoes: [{ razao: 'O campo não respeita o schema.', propriedade: 'cob.valor.original' }],
        },
      },
      { status: 404, body: { title: 'Cobrança não encontrada.', status: 404 } },
    ]);
    const client = clientFor(psp.url);

    const error = await captureError(client.createCharge(newTxid(), charge('k')));

    expect(error).toMatchObject({ kind: 'invalid', status: 400 });
    expect(error.extra.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
    expect(error.detail).toContain('cob.valor.original');
    expect(psp.calls.map((call) => call.split(' ')[0])).toEqual(['PUT', 'GET']);
  });

  it('treats a {nome: "txid_duplicado"} answer as a replay and returns the existing cob', async () => {
    const txid = newTxid();
    const psp = await scriptedPsp([
      { status: 400, body: { nome: 'txid_duplicado', mensagem: 'Campo txid informado já foi utilizado' } },
      { status: 200, body: aCob({ txid }) },
    ]);
    const client = clientFor(psp.url);

    const cob = await client.createCharge(txid, charge('k', 100));

    expect(cob.txid).toBe(txid);
    expect(psp.calls).toEqual([`PUT /v2/cob/${txid}`, `GET /v2/cob/${txid}`]);
  });

  it('rejects a cob reply that lacks required fields instead of trusting it', async () => {
    const psp = await scriptedPsp([{ status: 200, body: { txid: 'x' } }]);
    const client = clientFor(psp.url, { maxRetries: 0 });

    expect(await captureError(client.getCharge(newTxid()))).toMatchObject({ kind: 'unavailable' });
  });

  it('times every exchange with the PSP by operation and outcome, never by path', async () => {
    const txid = newTxid();
    const psp = await scriptedPsp([
      { status: 503 },
      { status: 200, body: aCob({ txid }) },
      { status: 404, body: { title: 'Não encontrada' } },
    ]);
    const client = clientFor(psp.url, {}, { sleep: async () => undefined });
    const before = await pspExchanges();

    await client.getCharge(txid);
    await captureError(client.updateChargeAmount(txid, 200));
    const closed = await closedPort();
    await captureError(clientFor(closed, { maxRetries: 0 }).getCharge(txid));

    const after = await pspExchanges();
    const added = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect({
      tokens: added('oauth.token ok'),
      unavailable: added('cob.get unavailable'),
      ok: added('cob.get ok'),
      refused: added('cob.update refused'),
    }).toEqual({ tokens: 1, unavailable: 1, ok: 1, refused: 1 });
    // The unreachable PSP's token request is the exchange that got no answer.
    expect(added('oauth.token unreachable')).toBe(1);
    expect([...after.keys()].every((key) => !key.includes(txid) && !key.includes('/'))).toBe(true);
  });

  it('reports a refused connection as unavailable, without an HTTP status', async () => {
    const closed = await closedPort();
    const client = clientFor(closed, { maxRetries: 1 });

    expect(await captureError(client.getCharge(newTxid()))).toMatchObject({
      kind: 'unavailable',
      status: null,
    });
  });
});
