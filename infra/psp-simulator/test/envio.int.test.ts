import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger } from '@gateway/observability';
import { closeAfterEachTest, recordingLogger, waitFor } from '@gateway/testkit-core';
import { type RunningPspSimulator, createPspSimulator } from '../src';
import { pspBooksForThisFile } from './support/books';
import { outageThroughTwoSettleTries } from './support/books-outage';
import { startCallbackReceiver } from './support/callback-receiver';

const silent = createLogger('psp-simulator-test', 'silent');
const CLIENT = { clientId: 'envio-client', clientSecret: 'envio-secret' };
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();

interface Reply {
  status: number;
  contentType: string;
  json: any;
}

/** A simulated account on the file's books, its key, and a caller holding a token (of `scope`, default all). */
async function account(
  options: { pixKey?: string; settleMs?: number; webhook?: boolean; logger?: typeof silent } = {},
) {
  const pixKey = options.pixKey ?? randomUUID();
  const start = () =>
    createPspSimulator({
      databaseUrl: booksUrl(),
      ...CLIENT,
      pixKey,
      logger: options.logger ?? silent,
      callbackRetryDelaysMs: [50],
      envioCallbackDelaysMs: [50, 100, 200, 400],
      envioSettleMs: options.settleMs ?? 30,
    }).start(0);
  const psp = await start();
  afterThisTest(psp.close);
  const hook = await startCallbackReceiver();
  afterThisTest(hook.close);
  const token = await tokenOf(psp);
  const call = caller(psp, token);
  if (options.webhook !== false)
    expect((await call('PUT', `/v2/webhook/${pixKey}`, { webhookUrl: hook.url })).status).toBe(200);
  return { psp, pixKey, hook, call, start };
}

async function tokenOf(psp: RunningPspSimulator, scope?: string): Promise<string> {
  const response = await fetch(`${psp.url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: `grant_type=client_credentials${scope === undefined ? '' : `&scope=${encodeURIComponent(scope)}`}`,
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

function caller(psp: RunningPspSimulator, token: string) {
  return async (method: string, path: string, body?: unknown, raw?: string): Promise<Reply> => {
    const response = await fetch(`${psp.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    let json: unknown = text;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text
    }
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', json };
  };
}

/** Pays `centavos` into the account through a cob (the sandbox payer), crediting its balance. */
async function credit(call: ReturnType<typeof caller>, pixKey: string, centavos: number): Promise<void> {
  const txid = `envio${randomBytes(12).toString('hex')}`;
  const valor = `${Math.floor(centavos / 100)}.${String(centavos % 100).padStart(2, '0')}`;
  const body = { calendario: { expiracao: 3600 }, valor: { original: valor }, chave: pixKey };
  expect((await call('PUT', `/v2/cob/${txid}`, body)).status).toBe(201);
  expect((await call('POST', `/v2/cob/pagar/${txid}`, {})).status).toBe(200);
}

/** The callbacks that told of sends (the hook also hears of the Pix received into the account). */
const sendsTold = (bodies: string[]) =>
  bodies
    .flatMap((body) => (JSON.parse(body) as { pix: Array<{ gnExtras?: unknown }> }).pix)
    .filter((item) => item.gnExtras);

const newIdEnvio = () => `e${randomBytes(10).toString('hex')}`;
const envio = (pixKey: string, valor: string, favorecido: unknown = { chave: 'fornecedor@example.com' }) => ({
  valor,
  pagador: { chave: pixKey, infoPagador: 'Repasse' },
  favorecido,
});

describe('the simulator serves Efí envio de Pix and balance', () => {
  it('answers a send 201 EM_PROCESSAMENTO, settles it REALIZADO, reads it by idEnvio and e2eId, and calls back', async () => {
    const { pixKey, call, hook } = await account();
    await credit(call, pixKey, 5000);
    const idEnvio = newIdEnvio();

    const sent = await call('PUT', `/v3/gn/pix/${idEnvio}`, envio(pixKey, '12.34'));

    expect(sent.status).toBe(201);
    expect(sent.json).toEqual({
      idEnvio,
      e2eId: expect.stringMatching(/^E[a-zA-Z0-9]{31}$/),
      valor: '12.34',
      horario: { solicitacao: expect.any(String) },
      status: 'EM_PROCESSAMENTO',
    });
    await waitFor(
      async () => (await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.status === 'REALIZADO',
    );
    const byId = await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`);
    expect(byId.json).toEqual({
      endToEndId: sent.json.e2eId,
      idEnvio,
      valor: '12.34',
      chave: pixKey,
      status: 'REALIZADO',
      infoPagador: 'Repasse',
      horario: { solicitacao: sent.json.horario.solicitacao, liquidacao: expect.any(String) },
      // As Efí shows it: the key and its holder, the CPF masked.
      favorecido: {
        chave: 'fornecedor@example.com',
        identificacao: {
          nome: expect.any(String),
          cpf: expect.stringMatching(/^\*\*\*\.\d{3}\.\d{3}-\*\*$/),
        },
      },
    });
    expect((await call('GET', `/v2/gn/pix/enviados/${sent.json.e2eId}`)).json).toEqual(byId.json);
    await waitFor(() => sendsTold(hook.bodies).length === 1);
    expect(sendsTold(hook.bodies)).toEqual([
      {
        endToEndId: sent.json.e2eId,
        chave: pixKey,
        tipo: 'SOLICITACAO',
        status: 'REALIZADO',
        valor: '12.34',
        horario: byId.json.horario.liquidacao,
        infoPagador: 'Repasse',
        gnExtras: { idEnvio },
      },
    ]);
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '37.66' });
    expect((await call('GET', '/v2/gn/saldo?bloqueios=true')).json).toEqual({
      saldo: '37.66',
      bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' },
    });
  });

  it('sends to bank account data (favorecido.contaBanco) and checks a CNPJ key against favorecido.cnpj', async () => {
    const { pixKey, call } = await account();
    await credit(call, pixKey, 5000);
    const contaBanco = {
      nome: 'JOSE CARVALHO',
      cpf: '10519952057',
      codigoBanco: '09089356',
      agencia: '1',
      conta: '123453',
      tipoConta: 'cacc',
    };
    const idEnvio = newIdEnvio();

    expect((await call('PUT', `/v3/gn/pix/${idEnvio}`, envio(pixKey, '12.34', { contaBanco }))).status).toBe(
      201,
    );
    // As Efí's read shows a bank send: no codigoBanco, the CPF masked, the account type in words.
    expect((await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.favorecido).toEqual({
      contaBanco: {
        nome: 'JOSE CARVALHO',
        cpf: '***.199.520-**',
        agencia: '1',
        conta: '123453',
        tipoConta: 'corrente',
      },
    });
    const keyOfHolder = newIdEnvio();
    expect(
      (
        await call(
          'PUT',
          `/v3/gn/pix/${keyOfHolder}`,
          envio(pixKey, '0.01', { chave: '12345678909', cpf: '12345678909' }),
        )
      ).status,
    ).toBe(201);
    expect(
      (await call('GET', `/v2/gn/pix/enviados/id-envio/${keyOfHolder}`)).json.favorecido.identificacao,
    ).toEqual({ nome: expect.any(String), cpf: '***.456.789-**' });
    expect(
      (
        await call(
          'PUT',
          `/v3/gn/pix/${newIdEnvio()}`,
          envio(pixKey, '1.00', { chave: '11222333000181', cnpj: '11222333000181' }),
        )
      ).status,
    ).toBe(201);
    expect(
      await call(
        'PUT',
        `/v3/gn/pix/${newIdEnvio()}`,
        envio(pixKey, '1.00', { chave: '11222333000181', cnpj: '99888777000166' }),
      ),
    ).toMatchObject({ status: 400, json: { nome: 'chave_nao_pertence_ao_documento' } });
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '36.65' });
  });

  it('refuses a used idEnvio 409 id_envio_duplicado, sending nothing more', async () => {
    const { pixKey, call } = await account();
    await credit(call, pixKey, 5000);
    const idEnvio = newIdEnvio();
    expect((await call('PUT', `/v3/gn/pix/${idEnvio}`, envio(pixKey, '10.00'))).status).toBe(201);

    const replays = await Promise.all(
      Array.from({ length: 5 }, () => call('PUT', `/v3/gn/pix/${idEnvio}`, envio(pixKey, '10.00'))),
    );

    for (const replay of replays)
      expect(replay).toMatchObject({
        status: 409,
        json: {
          nome: 'id_envio_duplicado',
          mensagem: 'O id de envio informado já foi utilizado em outro pagamento',
        },
      });
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '40.00' });
  });

  it('racing sends never spend the same money: the balance covers those it accepts and no more', async () => {
    const { pixKey, call } = await account();
    await credit(call, pixKey, 1000);

    const replies = await Promise.all(
      Array.from({ length: 8 }, () => call('PUT', `/v3/gn/pix/${newIdEnvio()}`, envio(pixKey, '3.00'))),
    );

    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(3);
    for (const reply of replies.filter((r) => r.status !== 201))
      expect(reply).toMatchObject({ status: 422, json: { nome: 'saldo_insuficiente' } });
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '1.00' });
  });

  it('a send needs the account own key, with a webhook on it', async () => {
    const { pixKey, call } = await account({ webhook: false });
    await credit(call, pixKey, 1000);

    expect(await call('PUT', `/v3/gn/pix/${newIdEnvio()}`, envio(pixKey, '1.00'))).toMatchObject({
      status: 400,
      json: { nome: 'webhook_nao_encontrado' },
    });
    expect(await call('PUT', `/v3/gn/pix/${newIdEnvio()}`, envio(randomUUID(), '1.00'))).toMatchObject({
      status: 400,
      json: {
        nome: 'chave_invalida',
        mensagem: 'A chave informada não faz referência à conta Efí autenticada',
      },
    });
  });

  it('a rule fails the envios it names: NAO_REALIZADO with gnExtras.erro, horario null in the callback, the money back', async () => {
    // Long enough in processing for the balance to be seen without the amount before the refusal gives it back.
    const { psp, pixKey, call, hook } = await account({ settleMs: 1000 });
    await credit(call, pixKey, 2000);
    psp.envioRules.fail({ chave: '+5531999998888' });
    const idEnvio = newIdEnvio();

    expect(
      (await call('PUT', `/v3/gn/pix/${idEnvio}`, envio(pixKey, '15.00', { chave: '+5531999998888' })))
        .status,
    ).toBe(201);
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '5.00' });

    await waitFor(() => sendsTold(hook.bodies).length === 1, { timeoutMs: 15_000 });
    const [told] = sendsTold(hook.bodies) as any[];
    expect(told).toMatchObject({
      status: 'NAO_REALIZADO',
      horario: null,
      gnExtras: {
        idEnvio,
        erro: {
          codigo: 'AC03',
          origem: 'PSP do usuário recebedor',
          motivo: 'Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido',
        },
      },
    });
    const read = await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`);
    // Efí documents the reason in the callback only: the read tells the status.
    expect(read.json).toMatchObject({ status: 'NAO_REALIZADO' });
    expect(read.json.gnExtras).toBeUndefined();
    expect(read.json.horario.liquidacao).toBeUndefined();
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '20.00' });
  });

  it('a devolução the balance cannot cover (its money paid out) is refused as Efí tells it: NAO_REALIZADO, saldo insuficiente', async () => {
    const { pixKey, call } = await account();
    const txid = `envio${randomBytes(12).toString('hex')}`;
    await call('PUT', `/v2/cob/${txid}`, {
      calendario: { expiracao: 3600 },
      valor: { original: '10.00' },
      chave: pixKey,
    });
    expect((await call('POST', `/v2/cob/pagar/${txid}`, {})).status).toBe(200);
    const { endToEndId } = (await call('GET', `/v2/cob/${txid}`)).json.pix[0];
    expect((await call('PUT', `/v3/gn/pix/${newIdEnvio()}`, envio(pixKey, '8.00'))).status).toBe(201);

    const uncovered = await call('PUT', `/v2/pix/${endToEndId}/devolucao/semsaldo1`, { valor: '5.00' });
    const covered = await call('PUT', `/v2/pix/${endToEndId}/devolucao/comsaldo1`, { valor: '2.00' });

    expect(uncovered).toMatchObject({ status: 201, json: { status: 'EM_PROCESSAMENTO' } });
    expect(covered).toMatchObject({ status: 201, json: { status: 'EM_PROCESSAMENTO' } });
    const devolucao = async (id: string) => (await call('GET', `/v2/pix/${endToEndId}/devolucao/${id}`)).json;
    await waitFor(
      async () =>
        (await devolucao('semsaldo1')).status !== 'EM_PROCESSAMENTO' &&
        (await devolucao('comsaldo1')).status !== 'EM_PROCESSAMENTO',
    );
    expect(await devolucao('semsaldo1')).toMatchObject({
      status: 'NAO_REALIZADO',
      motivo: 'Saldo insuficiente para realizar a devolução.',
    });
    expect((await devolucao('comsaldo1')).status).toBe('DEVOLVIDO');
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '0.00' });
  });

  it('the failure rule can be armed over HTTP too, for a simulator run as its own process', async () => {
    const { pixKey, call, hook } = await account();
    await credit(call, pixKey, 1000);

    const armed = await call('POST', '/v2/envio/falhar', {
      valor: '2.22',
      quantidade: 1,
      motivo: 'Conta bloqueada',
    });
    expect(armed).toMatchObject({
      status: 201,
      json: { valor: '2.22', quantidade: 1, erro: { codigo: 'AC03', motivo: 'Conta bloqueada' } },
    });
    expect(await call('POST', '/v2/envio/falhar', { motivo: 'sem chave nem valor' })).toMatchObject({
      status: 400,
      json: { type: 'https://pix.bcb.gov.br/api/v2/error/RequisicaoInvalida' },
    });
    const failing = newIdEnvio();
    const made = newIdEnvio();
    expect((await call('PUT', `/v3/gn/pix/${failing}`, envio(pixKey, '2.22'))).status).toBe(201);
    expect((await call('PUT', `/v3/gn/pix/${made}`, envio(pixKey, '2.22'))).status).toBe(201);

    const statusOf = async (idEnvio: string) =>
      (await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.status as string;
    await waitFor(
      async () => (await statusOf(failing)) === 'NAO_REALIZADO' && (await statusOf(made)) === 'REALIZADO',
    );
    await waitFor(() => sendsTold(hook.bodies).length === 2);
    expect(sendsTold(hook.bodies).find((item: any) => item.gnExtras.idEnvio === failing)).toMatchObject({
      gnExtras: { erro: { codigo: 'AC03', origem: 'PSP do usuário recebedor', motivo: 'Conta bloqueada' } },
    });
  });

  it('a rule is used up only by sends it fails: a 409 replay or a 422 refusal leaves it armed', async () => {
    const { psp, pixKey, call } = await account();
    await credit(call, pixKey, 1000);
    const destination = { chave: 'regra@example.com' };
    const existing = newIdEnvio();
    expect((await call('PUT', `/v3/gn/pix/${existing}`, envio(pixKey, '1.00', destination))).status).toBe(
      201,
    );
    psp.envioRules.fail({ chave: 'regra@example.com', count: 1 });

    expect((await call('PUT', `/v3/gn/pix/${existing}`, envio(pixKey, '1.00', destination))).status).toBe(
      409,
    );
    expect(
      (await call('PUT', `/v3/gn/pix/${newIdEnvio()}`, envio(pixKey, '99.00', destination))).status,
    ).toBe(422);
    const failing = newIdEnvio();
    const made = newIdEnvio();
    expect((await call('PUT', `/v3/gn/pix/${failing}`, envio(pixKey, '1.00', destination))).status).toBe(201);
    expect((await call('PUT', `/v3/gn/pix/${made}`, envio(pixKey, '1.00', destination))).status).toBe(201);

    const statusOf = async (idEnvio: string) =>
      (await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.status as string;
    await waitFor(
      async () =>
        (await statusOf(failing)) !== 'EM_PROCESSAMENTO' && (await statusOf(made)) !== 'EM_PROCESSAMENTO',
    );
    expect(await statusOf(existing)).toBe('REALIZADO');
    expect(await statusOf(failing)).toBe('NAO_REALIZADO');
    expect(await statusOf(made)).toBe('REALIZADO');
  });

  it('an envio in processing when the simulator stops settles, as planned, when it starts again, and is told', async () => {
    const pixKey = randomUUID();
    // Due well after the first simulator has stopped (a loaded machine included): the one started next settles them.
    const first = await account({ pixKey, settleMs: 4000 });
    await credit(first.call, pixKey, 1000);
    first.psp.envioRules.fail({ valor: '4.00' });
    const failing = newIdEnvio();
    const made = newIdEnvio();
    expect((await first.call('PUT', `/v3/gn/pix/${failing}`, envio(pixKey, '4.00'))).status).toBe(201);
    expect((await first.call('PUT', `/v3/gn/pix/${made}`, envio(pixKey, '1.00'))).status).toBe(201);
    // Still in processing and untold when it stops: only the next simulator can settle and tell them.
    for (const idEnvio of [failing, made])
      expect((await first.call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.status).toBe(
        'EM_PROCESSAMENTO',
      );
    await first.psp.close();
    expect(sendsTold(first.hook.bodies)).toEqual([]);

    const again = await createPspSimulator({
      databaseUrl: booksUrl(),
      ...CLIENT,
      pixKey,
      logger: silent,
      callbackRetryDelaysMs: [50],
    }).start(0);
    afterThisTest(again.close);
    const call = caller(again, await tokenOf(again));
    const statusOf = async (idEnvio: string) =>
      (await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.status as string;

    await waitFor(
      async () => (await statusOf(failing)) === 'NAO_REALIZADO' && (await statusOf(made)) === 'REALIZADO',
    );
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '9.00' });
    await waitFor(() => sendsTold(first.hook.bodies).length === 2);
    expect(
      (sendsTold(first.hook.bodies) as any[]).map((item) => [item.gnExtras.idEnvio, item.status]).sort(),
    ).toEqual(
      [
        [failing, 'NAO_REALIZADO'],
        [made, 'REALIZADO'],
      ].sort(),
    );
  });

  it('an envio due while the database refuses connections settles once it is back, and is told', async () => {
    const { logger, lines } = recordingLogger('psp-simulator-outage');
    // Long enough to cut the database off before it is due.
    const { pixKey, call, hook } = await account({ settleMs: 1_000, logger });
    await credit(call, pixKey, 5000);
    const idEnvio = newIdEnvio();
    expect((await call('PUT', `/v3/gn/pix/${idEnvio}`, envio(pixKey, '7.00'))).status).toBe(201);

    await outageThroughTwoSettleTries(booksUrl(), lines);
    await waitFor(
      async () => (await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json?.status === 'REALIZADO',
      { what: 'the envio settled after the outage' },
    );
    await waitFor(() => sendsTold(hook.bodies).length === 1, { what: 'the callback of the envio' });

    expect(sendsTold(hook.bodies)).toEqual([
      expect.objectContaining({ status: 'REALIZADO', valor: '7.00', gnExtras: { idEnvio } }),
    ]);
  });

  it('a send callback the webhook refused is sent again after a restart, until accepted, and once', async () => {
    const pixKey = randomUUID();
    const first = await account({ pixKey });
    await credit(first.call, pixKey, 1000);
    first.hook.answerWith(503);
    const idEnvio = newIdEnvio();
    expect((await first.call('PUT', `/v3/gn/pix/${idEnvio}`, envio(pixKey, '2.00'))).status).toBe(201);
    await waitFor(
      async () =>
        (await first.call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.status === 'REALIZADO',
    );
    // Refused at least once, then the simulator stops before its next try.
    await waitFor(() => first.hook.refused() >= 1);
    await first.psp.close();
    expect(sendsTold(first.hook.bodies)).toEqual([]);
    first.hook.answerWith(200);

    const again = await createPspSimulator({
      databaseUrl: booksUrl(),
      ...CLIENT,
      pixKey,
      logger: silent,
      callbackRetryDelaysMs: [50],
      envioCallbackDelaysMs: [50, 100],
    }).start(0);
    afterThisTest(again.close);

    await waitFor(() => sendsTold(first.hook.bodies).length === 1);
    expect(sendsTold(first.hook.bodies)[0]).toMatchObject({ status: 'REALIZADO', gnExtras: { idEnvio } });
    // Told once: a third simulator has nothing left to send.
    await again.close();
    const third = await createPspSimulator({
      databaseUrl: booksUrl(),
      ...CLIENT,
      pixKey,
      logger: silent,
      envioCallbackDelaysMs: [50],
    }).start(0);
    afterThisTest(third.close);
    const call = caller(third, await tokenOf(third));
    expect((await call('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.status).toBe('REALIZADO');
    expect(await third.envioCallbacksPending()).toBe(0);
    expect(sendsTold(first.hook.bodies)).toHaveLength(1);
  });

  it('a tariff the PSP takes lowers the balance, shows in no Pix list, and a malformed one is refused', async () => {
    const { pixKey, call } = await account();
    await credit(call, pixKey, 5000);

    const taken = await call('POST', '/v2/tarifa', { valor: '1.25', descricao: 'Tarifa Pix recebido' });

    expect(taken).toMatchObject({
      status: 201,
      json: { valor: '1.25', descricao: 'Tarifa Pix recebido', cobradaEm: expect.any(String) },
    });
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '48.75' });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const until = new Date(Date.now() + 60_000).toISOString();
    const sent = await call('GET', `/v2/gn/pix/enviados?inicio=${since}&fim=${until}`);
    expect(sent.json.pix).toEqual([]);
    for (const body of [{}, { valor: '0.00' }, { valor: '1,25' }, { valor: '1.00', descricao: 'a\u0000b' }])
      expect((await call('POST', '/v2/tarifa', body)).status).toBe(400);
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '48.75' });
  });

  it('reads are scoped and unknown sends are 404 PixEnviadoNaoEncontrado', async () => {
    const { psp, call } = await account();

    for (const path of [
      '/v2/gn/pix/enviados/id-envio/nada',
      `/v2/gn/pix/enviados/E${'1'.repeat(31)}`,
      '/v2/gn/pix/enviados/x',
    ])
      expect(await call('GET', path)).toMatchObject({
        status: 404,
        json: {
          type: 'https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado',
          title: 'Não Encontrado',
          status: 404,
        },
      });
    const readOnly = caller(psp, await tokenOf(psp, 'gn.pix.send.read'));
    expect((await readOnly('PUT', `/v3/gn/pix/${newIdEnvio()}`, {})).status).toBe(403);
    expect((await readOnly('GET', '/v2/gn/saldo')).status).toBe(403);
    const noToken = caller(psp, 'not-a-token');
    expect((await noToken('GET', '/v2/gn/saldo')).status).toBe(401);
  });

  it('hostile input answers Efí errors, 4xx, never a 5xx, and sends nothing', async () => {
    const { pixKey, call } = await account();
    await credit(call, pixKey, 1000);
    const put = (body: unknown, idEnvio = newIdEnvio(), raw?: string) =>
      call('PUT', `/v3/gn/pix/${idEnvio}`, body, raw);
    const cases: Array<[string, () => Promise<Reply>, number, string]> = [
      ['malformed JSON', () => put(undefined, undefined, '{"valor": "1.00",'), 400, 'json_invalido'],
      ['JSON null', () => put(undefined, undefined, 'null'), 400, 'json_invalido'],
      ['an array', () => put([envio(pixKey, '1.00')]), 400, 'json_invalido'],
      ['a string', () => put(undefined, undefined, '"1.00"'), 400, 'json_invalido'],
      ['an empty body', () => put(undefined, undefined, ''), 400, 'json_invalido'],
      ['valor as a number', () => put({ ...envio(pixKey, '1.00'), valor: 1 }), 400, 'json_invalido'],
      ['valor of 11 digits', () => put(envio(pixKey, '99999999999.99')), 400, 'json_invalido'],
      ['valor 1e308', () => put(envio(pixKey, '1e308')), 400, 'json_invalido'],
      ['valor negative', () => put(envio(pixKey, '-1.00')), 400, 'json_invalido'],
      ['valor zero', () => put(envio(pixKey, '0.00')), 400, 'valor_invalido'],
      ['valor beyond the balance', () => put(envio(pixKey, '9999999999.99')), 422, 'saldo_insuficiente'],
      ['an unknown property', () => put({ ...envio(pixKey, '1.00'), extra: true }), 400, 'json_invalido'],
      ['no favorecido', () => put({ valor: '1.00', pagador: { chave: pixKey } }), 400, 'json_invalido'],
      [
        'both chave and contaBanco',
        () => put(envio(pixKey, '1.00', { chave: 'a@b.co', contaBanco: {} })),
        400,
        'json_invalido',
      ],
      [
        'a key of 78 characters',
        () => put(envio(pixKey, '1.00', { chave: `${'a'.repeat(70)}@b.co.br` })),
        400,
        'json_invalido',
      ],
      [
        'a NUL in infoPagador',
        () => put({ ...envio(pixKey, '1.00'), pagador: { chave: pixKey, infoPagador: 'a\u0000b' } }),
        400,
        'json_invalido',
      ],
      [
        'infoPagador of 141 characters',
        () => put({ ...envio(pixKey, '1.00'), pagador: { chave: pixKey, infoPagador: 'x'.repeat(141) } }),
        400,
        'json_invalido',
      ],
      [
        'a cpf of 12 digits',
        () => put(envio(pixKey, '1.00', { chave: 'a@b.co', cpf: '123456789012' })),
        400,
        'json_invalido',
      ],
      [
        'a body of 100 kB',
        () => put({ ...envio(pixKey, '1.00'), pad: 'x'.repeat(100_000) }),
        400,
        'json_invalido',
      ],
      ['an idEnvio of 36 characters', () => put(envio(pixKey, '1.00'), 'a'.repeat(36)), 400, 'json_invalido'],
      ['an idEnvio with _', () => put(envio(pixKey, '1.00'), 'po_1'), 400, 'json_invalido'],
      [
        'an idEnvio of bad percent-encoding',
        () => put(envio(pixKey, '1.00'), '%E0%A4%A'),
        400,
        'json_invalido',
      ],
      [
        'a destination that is no Pix key',
        () => put(envio(pixKey, '1.00', { chave: 'nao e chave' })),
        400,
        'chave_invalida',
      ],
      [
        'a CPF key of another holder',
        () => put(envio(pixKey, '1.00', { chave: '12345678909', cpf: '98765432100' })),
        400,
        'chave_nao_pertence_ao_documento',
      ],
    ];
    for (const [what, send, status, nome] of cases) {
      const reply = await send();
      expect({
        what,
        status: reply.status,
        nome: reply.json?.nome,
        json: reply.contentType.includes('json'),
      }).toEqual({
        what,
        status,
        nome,
        json: true,
      });
    }
    expect((await call('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '10.00' });
  });
});
