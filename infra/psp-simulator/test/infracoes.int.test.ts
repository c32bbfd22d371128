import { type PspProfileName } from '@gateway/contracts';
import { createLogger } from '@gateway/observability';
import { closeAfterEachTest, createTestDatabase } from '@gateway/testkit-core';
import { createPspSimulator } from '../src';

const silent = createLogger('psp-simulator-test', 'silent');
const PIX_KEY = '5f8a3d0e-2c1b-4c4e-9b7a-6d2f1e0c9a31';
const TXID = 'infracao0test0txid0abcdefghijk';
const afterThisTest = closeAfterEachTest();

/** A simulator in the profile's mode, on books of its own, with a paid cob; its Pix's endToEndId. */
async function paidPix(profile: PspProfileName) {
  const books = await createTestDatabase();
  const running = await createPspSimulator({
    databaseUrl: books.url,
    clientId: 'c',
    clientSecret: 's',
    pixKey: PIX_KEY,
    logger: silent,
    profile,
  }).start(0);
  afterThisTest(async () => {
    await running.close();
    await books.drop();
  });
  // Efí takes the token request as JSON; the others as a form.
  const tokenReply = await fetch(`${running.url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('c:s').toString('base64')}`,
      'content-type': profile === 'efi' ? 'application/json' : 'application/x-www-form-urlencoded',
    },
    body:
      profile === 'efi'
        ? JSON.stringify({ grant_type: 'client_credentials' })
        : 'grant_type=client_credentials',
  });
  const { access_token: bearer } = (await tokenReply.json()) as { access_token: string };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  await call('PUT', `/v2/cob/${TXID}`, {
    calendario: { expiracao: 3600 },
    valor: { original: '10.00' },
    chave: PIX_KEY,
  });
  await call('POST', `/v2/cob/pagar/${TXID}`, {});
  const cob = await call('GET', `/v2/cob/${TXID}`);
  const e2eid = (cob.json as { pix: Array<{ endToEndId: string }> }).pix[0]!.endToEndId;
  return { call, e2eid };
}

const period = () => {
  const now = Date.now();
  return `inicio=${new Date(now - 3_600_000).toISOString()}&fim=${new Date(now + 3_600_000).toISOString()}`;
};

describe("Efí's MED infractions", () => {
  it('opens an infraction with each MED, lists it, takes one defence of it, refuses a bad or late one', async () => {
    const { call, e2eid } = await paidPix('efi');
    await call('PUT', `/v2/pix/${e2eid}/med/med1`, { valor: '4.00' });
    await call('PUT', `/v2/pix/${e2eid}/med/med1`, { valor: '4.00' });

    const listed = await call('GET', `/v2/gn/infracoes?${period()}`);
    expect(listed.status).toBe(200);
    expect(listed.json.infracoes).toEqual([
      expect.objectContaining({ endToEndId: e2eid, status: 'ABERTA', valor: '4.00', chave: PIX_KEY }),
    ]);
    expect(listed.json.parametros.paginacao).toMatchObject({ paginaAtual: 0, quantidadeTotalDeItens: 1 });
    const id = listed.json.infracoes[0].idInfracao as string;
    const defesa = `/v2/gn/infracoes/${id}/defesa`;

    const refusals = await Promise.all(
      [
        {},
        { analise: 'negado' },
        { analise: 'talvez', justificativa: 'x' },
        { analise: 'negado', justificativa: '' },
        { analise: 'negado', justificativa: 'a\u0000b' },
        { analise: 'negado', justificativa: 'x'.repeat(1001) },
        { analise: 'negado', justificativa: 42 },
        { analise: 'negado', justificativa: 'x', extra: true },
        '{"analise":',
      ].map((body) => call('POST', defesa, body)),
    );
    for (const refused of refusals)
      expect(refused).toMatchObject({
        status: 400,
        json: { nome: 'json_invalido', mensagem: expect.any(String) },
      });

    const defended = await call('POST', defesa, { analise: 'negado', justificativa: 'Entregue ao titular.' });
    const twice = await call('POST', defesa, { analise: 'negado', justificativa: 'De novo.' });
    const unknown = await call('POST', '/v2/gn/infracoes/nao-existe/defesa', {
      analise: 'negado',
      justificativa: 'x',
    });
    const after = await call('GET', `/v2/gn/infracoes?${period()}`);

    expect(defended).toMatchObject({
      status: 200,
      json: { idInfracao: id, status: 'EM_DEFESA', analise: 'negado', defesa: 'Entregue ao titular.' },
    });
    expect(twice).toMatchObject({ status: 400, json: { nome: 'infracao_nao_permite_defesa' } });
    expect(unknown).toMatchObject({ status: 404, json: { nome: 'infracao_nao_encontrada' } });
    expect(after.json.infracoes[0]).toMatchObject({
      status: 'EM_DEFESA',
      recebimentoDefesa: expect.any(String),
    });
  });

  it('ends the infraction with its MED: a defence after the end is refused', async () => {
    const { call, e2eid } = await paidPix('efi');
    await call('PUT', `/v2/pix/${e2eid}/med/med1`, {});
    await call('POST', `/v2/pix/${e2eid}/med/med1/concluir`, { status: 'DEVOLVIDO' });

    const listed = await call('GET', `/v2/gn/infracoes?${period()}`);
    const late = await call('POST', `/v2/gn/infracoes/${listed.json.infracoes[0].idInfracao}/defesa`, {
      analise: 'negado',
      justificativa: 'Tarde demais.',
    });
    const badPeriod = await call('GET', '/v2/gn/infracoes');

    expect(listed.json.infracoes[0]).toMatchObject({ status: 'ACEITA', finalizacao: expect.any(String) });
    expect(late).toMatchObject({ status: 400, json: { nome: 'infracao_nao_permite_defesa' } });
    expect(badPeriod).toMatchObject({ status: 400, json: { nome: 'json_invalido' } });
  });

  it('has no infractions at a bank without them (the baseline): 404', async () => {
    const { call, e2eid } = await paidPix('bcb');
    await call('PUT', `/v2/pix/${e2eid}/med/med1`, {});

    const listed = await call('GET', `/v2/gn/infracoes?${period()}`);
    const defesa = await call('POST', '/v2/gn/infracoes/x/defesa', { analise: 'negado', justificativa: 'x' });

    expect(listed.status).toBe(404);
    expect(defesa.status).toBe(404);
  });
});
