import { createLogger } from '@gateway/observability';
import { closeAfterEachTest, createTestDatabase, waitFor } from '@gateway/testkit-core';
import { FAILING_DEVOLUCAO_DESCRICAO, createPspSimulator } from '../src';
import { ApiPixSpec } from './support/api-pix-spec';
import { startCallbackReceiver } from './support/callback-receiver';

const silent = createLogger('psp-simulator-test', 'silent');
const PIX_KEY = '0b7c7f4e-8d0b-4e8e-9d43-4f1f3d3c2a10';
const TXID = 'spec0test0txid0abcdefghijklmno';
const afterThisTest = closeAfterEachTest();
let spec: ApiPixSpec;

beforeAll(async () => {
  spec = await ApiPixSpec.load();
});

/** A simulator on books of its own (the tests share a txid and a key), closed and its books dropped after the test. */
async function start(options: { omitTokenExpiresIn?: boolean } = {}) {
  const books = await createTestDatabase();
  const simulator = createPspSimulator({
    databaseUrl: books.url,
    clientId: 'c',
    clientSecret: 's',
    pixKey: PIX_KEY,
    logger: silent,
    callbackRetryDelaysMs: [50],
    devolucaoSettleMs: 50,
    ...options,
  });
  const running = await simulator.start(0);
  afterThisTest(async () => {
    await running.close();
    await books.drop();
  });
  const token = async (scope?: string) => {
    const response = await fetch(`${running.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('c:s').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `grant_type=client_credentials${scope === undefined ? '' : `&scope=${encodeURIComponent(scope)}`}`,
    });
    return (await response.json()) as { access_token: string; expires_in?: number; scope: string };
  };
  const { access_token: bearer } = await token();
  const call = async (method: string, path: string, body?: unknown, accessToken = bearer) => {
    const response = await fetch(`${running.url}/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const reply = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: text,
    };
    return {
      ...reply,
      json: text ? JSON.parse(text) : undefined,
      violations: spec.validateResponse(method, path, reply),
    };
  };
  return { running, token, call };
}

async function receiver() {
  const started = await startCallbackReceiver();
  afterThisTest(started.close);
  return started;
}

const cob = { calendario: { expiracao: 3600 }, valor: { original: '10.00' }, chave: PIX_KEY };

describe('the API Pix document as a validator', () => {
  it('refuses what the document refuses: a loc without tipoCob, a txid too long, a webhook URL without scheme, a cob without loc.txid, a 401', () => {
    expect(spec.validateRequest('PATCH', `/cob/${TXID}`, JSON.stringify({ loc: { id: 1 } }))).not.toEqual([]);
    expect(
      spec.validateRequest('PATCH', `/cob/${TXID}`, JSON.stringify({ loc: { id: 1, tipoCob: 'cob' } })),
    ).toEqual([]);
    expect(spec.validateRequest('GET', `/cob/${TXID}${'x'.repeat(10)}`, '')).not.toEqual([]);
    // Only a location may lack its scheme (as the document's own examples do); a webhook URL is a full URI.
    const webhook = (webhookUrl: string) =>
      spec.validateRequest('PUT', `/webhook/${PIX_KEY}`, JSON.stringify({ webhookUrl }));
    expect(webhook('https://shop.example/pix')).toEqual([]);
    expect(webhook('shop.example/pix')).not.toEqual([]);
    const answer = {
      calendario: { criacao: '2025-01-01T00:00:00Z', expiracao: 3600 },
      txid: TXID,
      revisao: 0,
      loc: { id: 1, location: 'psp.example/qr/v2/abc', tipoCob: 'cob', criacao: '2025-01-01T00:00:00Z' },
      status: 'ATIVA',
      valor: { original: '10.00' },
      chave: PIX_KEY,
    };
    const reply = (body: unknown, status = 201) => ({
      status,
      contentType: 'application/json',
      body: JSON.stringify(body),
    });
    expect(spec.validateResponse('PUT', `/cob/${TXID}`, reply(answer))).not.toEqual([]);
    expect(
      spec.validateResponse('PUT', `/cob/${TXID}`, reply({ ...answer, loc: { ...answer.loc, txid: TXID } })),
    ).toEqual([]);
    expect(spec.validateResponse('PUT', `/cob/${TXID}`, reply({ title: 'x', status: 401 }, 401))).not.toEqual(
      [],
    );
    expect(spec.scopesOf('POST', '/loc')).toEqual(['payloadlocation.write']);
  });
});

describe('PSP simulator against API Pix 2.9.0', () => {
  /** A simulator whose key has a webhook listening, and a cob paid there: the Pix (and its callback) to act on. */
  async function paidPixWithWebhook() {
    const { call } = await start();
    const hook = await receiver();
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: hook.url });
    await call('PUT', `/cob/${TXID}`, cob);
    await call('POST', `/cob/pagar/${TXID}`, {});
    const paid = await waitFor(() => hook.bodies[0], { what: 'the callback of the payment' });
    const e2eid = (JSON.parse(paid) as { pix: Array<{ endToEndId: string }> }).pix[0]!.endToEndId;
    return { call, hook, e2eid };
  }

  it('revisao grows on a real change only: not on a loc move alone, nor on a PATCH that changes nothing', async () => {
    const { call } = await start();
    await call('PUT', `/cob/${TXID}`, cob);
    const loc = await call('POST', '/loc', { tipoCob: 'cob' });

    const moved = await call('PATCH', `/cob/${TXID}`, { loc: { id: loc.json.id, tipoCob: 'cob' } });
    const same = await call('PATCH', `/cob/${TXID}`, { valor: { original: '10.00' } });
    const changed = await call('PATCH', `/cob/${TXID}`, { valor: { original: '12.00' } });
    const readLoc = await call('GET', `/loc/${loc.json.id}`);

    expect([moved.json.revisao, same.json.revisao, changed.json.revisao]).toEqual([0, 0, 1]);
    expect(moved.json.loc).toEqual({ ...loc.json, txid: TXID });
    expect(readLoc.json).toMatchObject({ id: loc.json.id, txid: TXID, tipoCob: 'cob' });
    for (const reply of [loc, moved, same, changed, readLoc]) expect(reply.violations).toEqual([]);
  });

  it('a cob names its debtor by CPF or CNPJ with the name, never both documents, never a document alone', async () => {
    const { call } = await start();
    const named = await call('PUT', `/cob/${TXID}`, {
      ...cob,
      devedor: { cpf: '52998224725', nome: 'Maria Souza' },
      solicitacaoPagador: 'Pedido 1001',
    });
    const read = await call('GET', `/cob/${TXID}`);
    const refusals = await Promise.all(
      [
        { cpf: '52998224725', cnpj: '11222333000181', nome: 'Os dois' },
        { cpf: '529.982.247-25', nome: 'Com pontuação' },
        { cnpj: '11222333000181' },
        { nome: 'Sem documento' },
        { cpf: '52998224725', nome: 'x'.repeat(201) },
      ].map((devedor, i) => call('PUT', `/cob/${TXID.slice(0, -1)}${i}`, { ...cob, devedor })),
    );

    expect(named.status).toBe(201);
    expect(read.json).toMatchObject({
      devedor: { cpf: '52998224725', nome: 'Maria Souza' },
      solicitacaoPagador: 'Pedido 1001',
    });
    for (const refused of refusals) {
      expect(refused.status).toBe(400);
      expect(refused.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
    }
    for (const reply of [named, read, ...refusals]) expect(reply.violations).toEqual([]);
  });

  it('a token carries the scopes asked for: an operation outside them is 403 AcessoNegado', async () => {
    const { token, call } = await start({ omitTokenExpiresIn: true });
    const readOnly = await token('cob.read');

    const refused = await call('PUT', `/cob/${TXID}`, cob, readOnly.access_token);

    expect(readOnly).not.toHaveProperty('expires_in');
    expect(readOnly.scope).toBe('cob.read');
    expect(refused.status).toBe(403);
    expect(refused.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/AcessoNegado');
    expect(refused.violations).toEqual([]);
  });

  it('a Pix lists who paid (pagador) and what they typed (infoPagador) in its callback and every read of it', async () => {
    const { call } = await start();
    const hook = await receiver();
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: hook.url });
    const other = `${TXID.slice(0, -1)}z`;
    await call('PUT', `/cob/${TXID}`, cob);
    await call('PUT', `/cob/${other}`, cob);
    await call('POST', `/cob/pagar/${TXID}`, { infoPagador: 'Pedido 1001' });
    await call('POST', `/cob/pagar/${other}`, { pagador: null });
    await waitFor(() => hook.bodies.length >= 2, { what: 'the callbacks of both payments' });
    const callbacks = hook.bodies.map(
      (body) => (JSON.parse(body) as { pix: Array<Record<string, unknown>> }).pix[0]!,
    );
    const byTxid = new Map(callbacks.map((item) => [item.txid, item]));
    const read = await call('GET', `/cob/${TXID}`);
    const readPix = await call('GET', `/pix/${String(byTxid.get(TXID)!.endToEndId)}`);

    const sandboxPayer = { cpf: '12345678909', nome: 'Fulana Pagadora de Tal' };
    expect(byTxid.get(TXID)).toMatchObject({ pagador: sandboxPayer, infoPagador: 'Pedido 1001' });
    expect(byTxid.get(other)).not.toHaveProperty('pagador');
    expect(read.json.pix[0]).toMatchObject({ pagador: sandboxPayer, infoPagador: 'Pedido 1001' });
    expect(readPix.json).toMatchObject({ pagador: sandboxPayer });
    for (const body of hook.bodies) expect(spec.validateCallback(body)).toEqual([]);
    for (const reply of [read, readPix]) expect(reply.violations).toEqual([]);
  });

  it('refunds a received Pix (devolução): EM_PROCESSAMENTO, then DEVOLVIDO or NAO_REALIZADO with a callback', async () => {
    const { call, hook, e2eid } = await paidPixWithWebhook();

    const asked = await call('PUT', `/pix/${e2eid}/devolucao/dev1`, { valor: '4.00' });
    const replay = await call('PUT', `/pix/${e2eid}/devolucao/dev1`, { valor: '4.00' });
    const reused = await call('PUT', `/pix/${e2eid}/devolucao/dev1`, { valor: '1.00' });
    const failing = await call('PUT', `/pix/${e2eid}/devolucao/dev2`, {
      valor: '5.00',
      descricao: FAILING_DEVOLUCAO_DESCRICAO,
    });
    const excess = await call('PUT', `/pix/${e2eid}/devolucao/dev3`, { valor: '6.01' });
    await waitFor(() => hook.bodies.length >= 3, { what: 'the callbacks of both devoluções' });
    const settled = await call('GET', `/pix/${e2eid}/devolucao/dev1`);
    const refused = await call('GET', `/pix/${e2eid}/devolucao/dev2`);
    const missing = await call('GET', `/pix/${e2eid}/devolucao/nope`);
    const pix = await call('GET', `/pix/${e2eid}`);

    expect(asked).toMatchObject({
      status: 201,
      json: { id: 'dev1', valor: '4.00', status: 'EM_PROCESSAMENTO' },
    });
    expect(replay).toMatchObject({ status: 201, json: { id: 'dev1', rtrId: asked.json.rtrId } });
    expect([reused.status, failing.status, excess.status, missing.status]).toEqual([400, 201, 400, 404]);
    expect(reused.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida');
    expect(settled.json).toMatchObject({ status: 'DEVOLVIDO', horario: { liquidacao: expect.any(String) } });
    expect(refused.json).toMatchObject({ status: 'NAO_REALIZADO' });
    expect(pix.json.devolucoes).toHaveLength(2);
    const callbacks = hook.bodies
      .slice(1)
      .map((body) => JSON.parse(body) as { pix: Array<{ devolucoes: Array<{ status: string }> }> });
    expect(callbacks.flatMap((body) => body.pix[0]!.devolucoes.map((d) => d.status))).toEqual(
      expect.arrayContaining(['DEVOLVIDO', 'NAO_REALIZADO']),
    );
    for (const body of hook.bodies) expect(spec.validateCallback(body)).toEqual([]);
    for (const reply of [asked, replay, reused, failing, excess, settled, refused, missing, pix])
      expect(reply.violations).toEqual([]);
  });

  it('raises a MED (sandbox): a devolução MED_FRAUDE read like any other, ended DEVOLVIDO or NAO_REALIZADO, each with a callback', async () => {
    const { call, hook, e2eid } = await paidPixWithWebhook();

    const raised = await call('PUT', `/pix/${e2eid}/med/med1`, { valor: '4.00' });
    const replay = await call('PUT', `/pix/${e2eid}/med/med1`, { valor: '4.00' });
    const excess = await call('PUT', `/pix/${e2eid}/med/med2`, { valor: '6.01' });
    const operational = await call('PUT', `/pix/${e2eid}/med/med2`, {
      natureza: 'MED_OPERACIONAL',
      valor: '6.00',
    });
    await waitFor(() => hook.bodies.length >= 3, { what: 'the callbacks of the MEDs raised' });
    const open = await call('GET', `/pix/${e2eid}/devolucao/med1`);
    const lost = await call('POST', `/pix/${e2eid}/med/med1/concluir`, { status: 'DEVOLVIDO' });
    const again = await call('POST', `/pix/${e2eid}/med/med1/concluir`, { status: 'DEVOLVIDO' });
    const turned = await call('POST', `/pix/${e2eid}/med/med1/concluir`, { status: 'NAO_REALIZADO' });
    const won = await call('POST', `/pix/${e2eid}/med/med2/concluir`, { status: 'NAO_REALIZADO' });
    await waitFor(() => hook.bodies.length >= 5, { what: 'the callbacks of the MEDs ended' });

    expect(raised).toMatchObject({
      status: 201,
      json: { id: 'med1', valor: '4.00', natureza: 'MED_FRAUDE', status: 'EM_PROCESSAMENTO' },
    });
    expect(replay).toMatchObject({ status: 201, json: { rtrId: raised.json.rtrId } });
    expect(excess.status).toBe(400);
    expect(operational.json).toMatchObject({ natureza: 'MED_OPERACIONAL', status: 'EM_PROCESSAMENTO' });
    expect(open.json).toMatchObject({ natureza: 'MED_FRAUDE', status: 'EM_PROCESSAMENTO' });
    expect(lost).toMatchObject({ status: 200, json: { status: 'DEVOLVIDO' } });
    expect(again).toMatchObject({ status: 200, json: { status: 'DEVOLVIDO' } });
    expect(turned.status).toBe(400);
    expect(won.json).toMatchObject({ status: 'NAO_REALIZADO', motivo: expect.any(String) });
    for (const body of hook.bodies) expect(spec.validateCallback(body)).toEqual([]);
    expect(open.violations).toEqual([]);
  });

  it('serves armed faults: 429 with and without Retry-After, 503, a slow answer, a lost answer after doing the work', async () => {
    const { running, call } = await start();
    running.faults.inject({ fault: { kind: 'rate-limit', retryAfterSeconds: 2 }, count: 1 });
    running.faults.inject({ fault: { kind: 'rate-limit' }, count: 1 });
    running.faults.inject({ fault: { kind: 'server-error' }, count: 1 });
    const limited = await fetch(`${running.url}/v2/cob/${TXID}`);
    const limitedBare = await fetch(`${running.url}/v2/cob/${TXID}`);
    const unavailable = await call('GET', `/cob/${TXID}`);

    running.faults.inject({ fault: { kind: 'slow', delayMs: 300 }, count: 1, method: 'GET' });
    const startedAt = Date.now();
    await call('GET', `/cob/${TXID}`);
    const slowMs = Date.now() - startedAt;

    running.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PUT', path: /^\/v2\/cob\// });
    const lost = await call('PUT', `/cob/${TXID}`, cob).catch((error: unknown) => error);
    const created = await call('GET', `/cob/${TXID}`);

    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '2']);
    expect([limitedBare.status, limitedBare.headers.get('retry-after')]).toEqual([429, null]);
    expect(unavailable.status).toBe(503);
    expect(unavailable.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel');
    expect(unavailable.violations).toEqual([]);
    expect(slowMs).toBeGreaterThanOrEqual(300);
    expect(String(lost)).toContain('fetch failed');
    expect(created).toMatchObject({ status: 200, json: { txid: TXID, revisao: 0 } });
  });
});
