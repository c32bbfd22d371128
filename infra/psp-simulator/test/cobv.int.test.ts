import { closeAfterEachTest, waitFor } from '@gateway/testkit-core';
import { brasiliaDay, dateOf, dayOf, isBusinessDay } from '../src/business-days';
import { amountDue, payableWindow } from '../src/cobv-amount';
import { ApiPixSpec } from './support/api-pix-spec';
import {
  OTHER_KEY,
  PIX_KEY,
  booksForThisTest,
  newTxid,
  plus,
  startApiPixSimulator,
} from './support/api-pix-simulator';
import { startCallbackReceiver } from './support/callback-receiver';
import { fetchPayload } from './support/payload-location';

const afterThisTest = closeAfterEachTest();
const PAYLOAD_TEMPLATE = '/cobv/{pixUrlAccessToken}';
let spec: ApiPixSpec;

beforeAll(async () => {
  spec = await ApiPixSpec.load();
});

/** The public payload location (no token), its answer checked against `GET /cobv/{pixUrlAccessToken}`. */
async function payload(location: string, query = '') {
  const response = await fetch(`http://${location}${query}`);
  const answer = await response.text();
  const reply = {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: answer,
  };
  const path = `/cobv/${location.split('/').pop()!}`;
  return {
    ...reply,
    payload:
      response.status === 200
        ? (JSON.parse(Buffer.from(answer.split('.')[1]!, 'base64url').toString('utf8')) as Record<
            string,
            any
          >)
        : undefined,
    json: response.status === 200 ? undefined : JSON.parse(answer),
    violations: spec.validateResponse('GET', path, reply, PAYLOAD_TEMPLATE),
  };
}

async function start(options?: { books?: string; pixKey?: string; clientId?: string }) {
  return { ...(await startApiPixSimulator(spec, afterThisTest, options)), payload };
}

function cobvBody(dataDeVencimento: string, extra: Record<string, unknown> = {}) {
  return {
    calendario: { dataDeVencimento, validadeAposVencimento: 5 },
    devedor: { cpf: '12345678909', nome: 'Francisco da Silva', cidade: 'Recife', uf: 'PE' },
    valor: {
      original: '100.00',
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 2, valorPerc: '1.00' },
    },
    chave: PIX_KEY,
    solicitacaoPagador: 'Mensalidade de dezembro',
    ...extra,
  };
}

describe('cobv: charges with a due date (API Pix 2.9.0)', () => {
  it('creates, reads and revises a cobv as the document states, with the scopes it names', async () => {
    const { call, today } = await start();
    const txid = newTxid();
    const due = plus(await today(), 10);
    expect(spec.scopesOf('PUT', `/cobv/${txid}`)).toEqual(['cobv.write']);
    expect(spec.scopesOf('GET', '/cobv')).toEqual(['cobv.read']);

    const created = await call('PUT', `/cobv/${txid}`, cobvBody(due));
    expect(created.requestViolations).toEqual([]);
    expect(created.status).toBe(201);
    expect(created.violations).toEqual([]);
    expect(created.json).toMatchObject({
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario: { dataDeVencimento: due, validadeAposVencimento: 5 },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva', cidade: 'Recife', uf: 'PE' },
      recebedor: { cnpj: '11222333000181' },
      valor: { original: '100.00', multa: { modalidade: 2, valorPerc: '2.00' } },
      loc: { tipoCob: 'cobv', txid },
    });
    expect(created.json.location).toMatch(/\/qr\/v2\/cobv\/[0-9a-f]{32}$/);

    // The same PUT again (its answer lost) changes nothing; a different one revises it.
    const replay = await call('PUT', `/cobv/${txid}`, cobvBody(due));
    expect(replay.status).toBe(201);
    expect(replay.json).toMatchObject({ revisao: 0, loc: { id: created.json.loc.id } });
    const changed = await call('PUT', `/cobv/${txid}`, cobvBody(due, { solicitacaoPagador: 'Outra' }));
    expect(changed.json).toMatchObject({
      revisao: 1,
      solicitacaoPagador: 'Outra',
      loc: { id: created.json.loc.id },
    });

    const patched = await call('PATCH', `/cobv/${txid}`, { valor: { original: '120.00' } });
    expect(patched.requestViolations).toEqual([]);
    expect(patched.status).toBe(200);
    expect(patched.violations).toEqual([]);
    expect(patched.json).toMatchObject({
      revisao: 2,
      valor: { original: '120.00', multa: { modalidade: 2 } },
    });

    const read = await call('GET', `/cobv/${txid}`);
    const first = await call('GET', `/cobv/${txid}?revisao=0`);
    const missing = await call('GET', `/cobv/${txid}?revisao=7`);
    expect(read.json).toMatchObject({ revisao: 2, valor: { original: '120.00' } });
    expect(first.json).toMatchObject({
      revisao: 0,
      valor: { original: '100.00' },
      solicitacaoPagador: 'Mensalidade de dezembro',
    });
    expect(missing.status).toBe(400);
    expect(missing.json.type).toMatch(/CobVConsultaInvalida$/);
    for (const reply of [replay, changed, read, first]) expect(reply.violations).toEqual([]);

    // Removing it together with other changes makes no sense; alone, it removes it, and then nothing changes it.
    const both = await call('PATCH', `/cobv/${txid}`, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      solicitacaoPagador: 'x',
    });
    const removed = await call('PATCH', `/cobv/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    const after = await call('PATCH', `/cobv/${txid}`, { solicitacaoPagador: 'tarde demais' });
    const putAfter = await call('PUT', `/cobv/${txid}`, cobvBody(due));
    expect(both.status).toBe(400);
    expect(removed.json).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: 3 });
    expect(after.status).toBe(400);
    expect(putAfter.status).toBe(400);
    for (const reply of [both, removed, after, putAfter]) expect(reply.violations).toEqual([]);
    expect((await call('POST', `/cobv/pagar/${txid}`, {})).status).toBe(400);
  });

  it('asks for cobv.write and cobv.read: a token without them is 403 AcessoNegado', async () => {
    const { call, token, today } = await start();
    const cobOnly = await token('cob.write cob.read');
    const txid = newTxid();
    const put = await call('PUT', `/cobv/${txid}`, cobvBody(plus(await today(), 3)), cobOnly);
    const list = await call(
      'GET',
      '/cobv?inicio=2020-01-01T00:00:00Z&fim=2030-01-01T00:00:00Z',
      undefined,
      cobOnly,
    );
    expect(put.status).toBe(403);
    expect(list.status).toBe(403);
    expect(put.violations).toEqual([]);
  });

  it('refuses hostile and wrong requests with API Pix problems and their violations', async () => {
    const { call, today } = await start();
    const due = plus(await today(), 3);
    const put = (body: unknown, raw?: string) => call('PUT', `/cobv/${newTxid()}`, body, undefined, raw);
    const refused = [
      await put(undefined, '{"calendario": '),
      await put(cobvBody(due, { devedor: { cpf: '12345678900', nome: 'Digito Errado' } })),
      await put(cobvBody(due, { devedor: { cnpj: '11222333000182', nome: 'Digito Errado SA' } })),
      await put(cobvBody(due, { devedor: { cpf: '12345678909', cnpj: '11222333000181', nome: 'Dois' } })),
      await put(cobvBody(due, { devedor: { nome: 'Sem documento' } })),
      await put({ ...cobvBody(due), devedor: undefined }),
      await put(cobvBody(due, { devedor: { cpf: '12345678909', nome: 'Nul\u0000l' } })),
      await put(cobvBody(due, { devedor: { cpf: '12345678909', nome: 'x'.repeat(20_000) } })),
      await put(cobvBody('31/12/2030')),
      await put(cobvBody('2030-02-30')),
      await put(cobvBody(plus(await today(), -1))),
      await put(cobvBody(due, { chave: OTHER_KEY })),
      await put(cobvBody(due, { valor: { original: '0.00' } })),
      await put(cobvBody(due, { valor: { original: '10.00', multa: { modalidade: 3, valorPerc: '1.00' } } })),
      await put(
        cobvBody(due, { valor: { original: '10.00', multa: { modalidade: '2', valorPerc: '1.00' } } }),
      ),
      await put(
        cobvBody(due, { valor: { original: '10.00', abatimento: { modalidade: 1, valorPerc: '10.00' } } }),
      ),
      await put(
        cobvBody(due, { valor: { original: '10.00', abatimento: { modalidade: 2, valorPerc: '100.00' } } }),
      ),
      await put(
        cobvBody(due, { valor: { original: '10.00', desconto: { modalidade: 1, valorPerc: '1.00' } } }),
      ),
      await put(cobvBody(due, { valor: { original: '10.00', desconto: { modalidade: 3 } } })),
      await put(
        cobvBody(due, {
          valor: {
            original: '10.00',
            desconto: { modalidade: 1, descontoDataFixa: [{ data: plus(due, 1), valorPerc: '1.00' }] },
          },
        }),
      ),
      await put(cobvBody(due, { calendario: { dataDeVencimento: due, validadeAposVencimento: -1 } })),
      await put(cobvBody(due, { loc: { id: 999_999, tipoCob: 'cobv' } })),
      await put(cobvBody(due, { infoAdicionais: [{ nome: 'a'.repeat(51), valor: 'b' }] })),
    ];
    for (const reply of refused) {
      expect(reply.status).toBe(400);
      expect(reply.violations).toEqual([]);
      expect(reply.json.type).toMatch(/\/(CobVOperacaoInvalida|RequisicaoInvalida)$/);
    }
    // Each refusal after the malformed JSON names the property at fault.
    for (const reply of refused.slice(1)) expect(reply.json.violacoes.length).toBeGreaterThan(0);
    expect(refused[1]!.json.violacoes[0].propriedade).toBe('cobv.devedor.cpf');
    expect(refused[2]!.json.violacoes[0].propriedade).toBe('cobv.devedor.cnpj');
    expect(refused[8]!.json.violacoes[0].propriedade).toBe('cobv.calendario.dataDeVencimento');
    // What the document's schema refuses, the simulator refuses too.
    for (const index of [3, 4, 5, 7, 8, 9, 13, 14, 18, 22])
      expect(refused[index]!.requestViolations).not.toEqual([]);

    // A txid already an immediate charge's is not a cobv's; a cob's location is not a cobv's.
    const txid = newTxid();
    await call('PUT', `/cob/${txid}`, {
      calendario: { expiracao: 3600 },
      valor: { original: '1.00' },
      chave: PIX_KEY,
    });
    const cobLoc = await call('POST', '/loc', { tipoCob: 'cob' });
    const onCob = await call('PUT', `/cobv/${txid}`, cobvBody(due));
    const atCobLoc = await call(
      'PUT',
      `/cobv/${newTxid()}`,
      cobvBody(due, { loc: { id: cobLoc.json.id, tipoCob: 'cobv' } }),
    );
    const readAsCobv = await call('GET', `/cobv/${txid}`);
    expect(onCob.status).toBe(400);
    expect(atCobLoc.json.violacoes[0].razao).toMatch(/tipo "cob"/);
    expect(readAsCobv.status).toBe(404);
    expect(readAsCobv.json.type).toMatch(/CobVNaoEncontrada$/);
    // A txid that breaks the document's pattern.
    expect((await call('GET', '/cobv/short')).status).toBe(400);
    // A body over the 64 kB the simulator reads is refused before it is parsed.
    const huge = await put(cobvBody(due, { solicitacaoPagador: 'x'.repeat(100_000) }));
    expect(huge.status).toBe(413);
    expect(huge.json.type).toMatch(/RequisicaoInvalida$/);
  });

  it("keeps one account's cobvs from another's, when two accounts share the books", async () => {
    const books = await booksForThisTest(afterThisTest);
    const mine = await start({ books });
    const theirs = await start({ books, pixKey: OTHER_KEY, clientId: 'other' });
    const txid = newTxid();
    const due = plus(await mine.today(), 3);
    expect((await mine.call('PUT', `/cobv/${txid}`, cobvBody(due))).status).toBe(201);

    const read = await theirs.call('GET', `/cobv/${txid}`);
    const put = await theirs.call('PUT', `/cobv/${txid}`, cobvBody(due, { chave: OTHER_KEY }));
    const patch = await theirs.call('PATCH', `/cobv/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    const list = await theirs.call('GET', '/cobv?inicio=2020-01-01T00:00:00Z&fim=2100-01-01T00:00:00Z');
    expect(read.status).toBe(404);
    expect(put.status).toBe(400);
    expect(patch.status).toBe(404);
    expect(list.json.cobs).toEqual([]);
    expect((await mine.call('GET', `/cobv/${txid}`)).json).toMatchObject({ status: 'ATIVA', revisao: 0 });
  });

  it('serves the payload for the intended payment date (DPP), signed, with valor.final for that day', async () => {
    const { call, payload, today } = await start();
    const now = await today();
    const due = plus(now, 10);
    const rules = {
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 2, valorPerc: '1.00' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: plus(now, 2), valorPerc: '5.00' }] },
    };
    const body = cobvBody(due, { valor: { original: '100.00', ...rules } });
    const created = await call('PUT', `/cobv/${newTxid()}`, body);
    const location = created.json.location as string;
    const window = payableWindow({ dataDeVencimento: due, validadeAposVencimento: 5 });
    const expected = (day: number) =>
      amountDue(
        { dataDeVencimento: due, validadeAposVencimento: 5 },
        { originalCentavos: 10_000, ...rules },
        day,
      );

    const early = await payload(location, `?DPP=${plus(now, 1)}&codMun=3550308`);
    const late = await payload(location, `?DPP=${dateOf(window.lastDay)}`);
    for (const reply of [early, late]) expect(reply.violations).toEqual([]);
    expect(early.payload).toMatchObject({
      txid: created.json.txid,
      status: 'ATIVA',
      calendario: { dataDeVencimento: due, validadeAposVencimento: 5 },
      valor: { original: '100.00', desconto: '5.00', final: '95.00' },
      devedor: { cpf: '12345678909' },
    });
    const lateDue = expected(window.lastDay);
    if (lateDue === 'past_window') throw new Error('the last day is payable');
    expect(late.payload!.valor.final).toBe((lateDue.final / 100).toFixed(2));
    expect(lateDue.multa).toBe(200);
    // The signature verifies with the key the header names (as a payer's bank checks it).
    expect(await fetchPayload(location)).toMatchObject({
      txid: created.json.txid,
      valor: { final: '95.00' },
    });

    const refused = [
      await payload(location, `?DPP=${plus(now, -1)}`),
      await payload(location, `?DPP=${dateOf(window.lastDay + 1)}`),
      await payload(location, '?DPP=01-01-2030'),
      await payload(location, '?codMun=123'),
      await payload(location, '?codMun=9912345'),
    ];
    for (const reply of refused) {
      expect(reply.status).toBe(400);
      expect(reply.json.type).toMatch(/CobPayloadOperacaoInvalida$/);
      expect(reply.violations).toEqual([]);
    }
    const unknown = await payload(location.replace(/[0-9a-f]{32}$/, 'f'.repeat(32)));
    expect(unknown.status).toBe(404);
    expect(unknown.violations).toEqual([]);
    // A cob's location path does not serve the cobv.
    expect((await fetch(`http://${location.replace('/cobv/', '/')}`)).status).toBe(404);
  });

  it('is paid late on the moved clock: the Pix lists componentesValor adding up to valor, in every read and the callback', async () => {
    const { call, today, advance } = await start();
    const hook = await startCallbackReceiver();
    afterThisTest(hook.close);
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: hook.url });
    const now = await today();
    const due = plus(now, 2);
    const txid = newTxid();
    await call('PUT', `/cobv/${txid}`, cobvBody(due));
    const window = payableWindow({ dataDeVencimento: due, validadeAposVencimento: 5 });

    // Moved to the last payable day: late, with the fine and the interest of each day.
    const moved = await advance(window.lastDay - brasiliaDay(new Date(`${now}T12:00:00-03:00`)));
    expect(moved.json.hoje).toBe(dateOf(window.lastDay));
    const expected = amountDue(
      { dataDeVencimento: due, validadeAposVencimento: 5 },
      {
        originalCentavos: 10_000,
        multa: { modalidade: 2, valorPerc: '2.00' },
        juros: { modalidade: 2, valorPerc: '1.00' },
      },
      window.lastDay,
    );
    if (expected === 'past_window') throw new Error('the last day is payable');
    const wrongAmount = await call('POST', `/cobv/pagar/${txid}`, { valor: '100.00' });
    expect(wrongAmount.status).toBe(400);
    const paid = await call('POST', `/cobv/pagar/${txid}`, { infoPagador: 'Pago com atraso' });
    expect(paid.status).toBe(200);
    const callback = await waitFor(() => hook.bodies[0], { what: 'the callback of the payment' });
    const pix = (JSON.parse(callback) as { pix: Array<Record<string, any>> }).pix[0]!;
    const byId = await call('GET', `/pix/${String(pix.endToEndId)}`);
    const inList = await call(
      'GET',
      `/pix?inicio=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}&fim=${encodeURIComponent('2100-01-01T00:00:00Z')}`,
    );
    const cobv = await call('GET', `/cobv/${txid}`);

    const valor = (expected.final / 100).toFixed(2);
    expect(pix).toMatchObject({
      txid,
      valor,
      componentesValor: {
        original: { valor: '100.00' },
        multa: { valor: '2.00' },
        juros: { valor: (expected.juros / 100).toFixed(2) },
      },
    });
    expect(expected.juros).toBeGreaterThan(0);
    const parts = pix.componentesValor as Record<string, { valor: string }>;
    const sum = ['original', 'multa', 'juros'].reduce(
      (total, name) => total + Math.round(Number(parts[name]!.valor) * 100),
      0,
    );
    expect(sum).toBe(expected.final);
    expect(byId.json).toMatchObject({ valor, componentesValor: parts });
    expect(inList.json.pix).toEqual([
      expect.objectContaining({ endToEndId: pix.endToEndId, componentesValor: parts }),
    ]);
    expect(cobv.json).toMatchObject({ status: 'CONCLUIDA', pix: [expect.objectContaining({ valor })] });
    // Its horario is the simulator's time, days ahead of the machine's.
    expect(new Date(String(pix.horario)).getTime()).toBeGreaterThan(Date.now() + 86_400_000);
    expect(spec.validateCallback(callback)).toEqual([]);
    for (const reply of [byId, inList, cobv]) expect(reply.violations).toEqual([]);
    // Paid once: a second payer is refused.
    expect((await call('POST', `/cobv/pagar/${txid}`, {})).status).toBe(400);
    expect(hook.bodies).toHaveLength(1);
  });

  it('is paid as of a day named in the sandbox pay (`data`), dated that day, its clock untouched', async () => {
    const { call, today } = await start();
    const now = await today();
    const due = plus(now, 2);
    const calendar = { dataDeVencimento: due, validadeAposVencimento: 5 };
    const window = payableWindow(calendar);
    const txid = newTxid();
    await call('PUT', `/cobv/${txid}`, cobvBody(due));
    // Before the cobv was created, or past its window: refused.
    expect((await call('POST', `/cobv/pagar/${txid}`, { data: plus(now, -1) })).status).toBe(400);
    expect((await call('POST', `/cobv/pagar/${txid}`, { data: dateOf(window.lastDay + 1) })).status).toBe(
      400,
    );
    const expected = amountDue(
      calendar,
      {
        originalCentavos: 10_000,
        multa: { modalidade: 2, valorPerc: '2.00' },
        juros: { modalidade: 2, valorPerc: '1.00' },
      },
      window.lastDay,
    );
    if (expected === 'past_window') throw new Error('the last day is payable');
    const paid = await call('POST', `/cobv/pagar/${txid}`, { data: dateOf(window.lastDay) });
    expect(paid.status).toBe(200);
    const cobv = await call('GET', `/cobv/${txid}`);
    const pix = (cobv.json.pix as Array<Record<string, any>>)[0]!;
    expect(pix.valor).toBe((expected.final / 100).toFixed(2));
    expect(brasiliaDay(new Date(String(pix.horario)))).toBe(window.lastDay);
    expect(await today()).toBe(now);
  });

  it('takes one Pix when two payers race on it: one is paid, the other refused, one callback', async () => {
    const { call, today } = await start();
    const hook = await startCallbackReceiver();
    afterThisTest(hook.close);
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: hook.url });
    const txid = newTxid();
    await call('PUT', `/cobv/${txid}`, cobvBody(plus(await today(), 3)));
    const payers = await Promise.all(
      Array.from({ length: 4 }, () => call('POST', `/cobv/pagar/${txid}`, {})),
    );
    expect(payers.map((reply) => reply.status).sort()).toEqual([200, 400, 400, 400]);
    await waitFor(() => hook.bodies[0], { what: 'the callback of the payment' });
    const cobv = await call('GET', `/cobv/${txid}`);
    expect(cobv.json.pix).toHaveLength(1);
    expect(cobv.json.pix[0]).toMatchObject({
      valor: '100.00',
      componentesValor: { original: { valor: '100.00' } },
    });
    expect(hook.bodies).toHaveLength(1);
  });

  it('is not payable past its window (its record stays ATIVA, as the document says a status is not about being overdue)', async () => {
    const { call, today, advance, payload } = await start();
    const now = await today();
    const txid = newTxid();
    const created = await call(
      'PUT',
      `/cobv/${txid}`,
      cobvBody(now, { calendario: { dataDeVencimento: now, validadeAposVencimento: 0 } }),
    );
    const window = payableWindow({ dataDeVencimento: now, validadeAposVencimento: 0 });
    await advance(window.lastDay + 1 - brasiliaDay(new Date(`${now}T12:00:00-03:00`)));
    const refused = await call('POST', `/cobv/pagar/${txid}`, {});
    const gone = await payload(created.json.location as string);
    // The same PUT again, days after its due date (a replay whose answer was lost), answers it unchanged.
    const replay = await call(
      'PUT',
      `/cobv/${txid}`,
      cobvBody(now, { calendario: { dataDeVencimento: now, validadeAposVencimento: 0 } }),
    );
    expect(replay.status).toBe(201);
    expect(replay.json).toMatchObject({ revisao: 0, status: 'ATIVA' });
    expect(refused.status).toBe(400);
    expect(refused.json.detail).toMatch(/validade/);
    expect(gone.status).toBe(404);
    expect(gone.violations).toEqual([]);
    expect((await call('GET', `/cobv/${txid}`)).json.status).toBe('ATIVA');
  });

  it('lists cobvs by period, debtor and status, a page at a time, as CobsVConsultadas', async () => {
    const { call, today } = await start();
    const due = plus(await today(), 5);
    const first = newTxid();
    await call('PUT', `/cobv/${first}`, cobvBody(due));
    await call('PUT', `/cobv/${newTxid()}`, cobvBody(due));
    await call(
      'PUT',
      `/cobv/${newTxid()}`,
      cobvBody(due, { devedor: { cnpj: '12ABC34501DE35', nome: 'Empresa Alfa SA' } }),
    );
    await call('PATCH', `/cobv/${first}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    const period = `inicio=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&fim=2100-01-01T00:00:00Z`;

    const page0 = await call('GET', `/cobv?${period}&paginacao.itensPorPagina=2`);
    const page1 = await call('GET', `/cobv?${period}&paginacao.itensPorPagina=2&paginacao.paginaAtual=1`);
    const byCpf = await call('GET', `/cobv?${period}&cpf=12345678909`);
    const byCnpj = await call('GET', `/cobv?${period}&cnpj=12ABC34501DE35`);
    const active = await call('GET', `/cobv?${period}&status=ATIVA&cpf=12345678909`);
    const lote = await call('GET', `/cobv?${period}&loteCobVId=1`);
    for (const reply of [page0, page1, byCpf, byCnpj, active, lote]) {
      expect(reply.status).toBe(200);
      expect(reply.violations).toEqual([]);
    }
    expect(page0.json.parametros.paginacao).toEqual({
      paginaAtual: 0,
      itensPorPagina: 2,
      quantidadeDePaginas: 2,
      quantidadeTotalDeItens: 3,
    });
    expect(page0.json.cobs).toHaveLength(2);
    expect(page1.json.cobs).toHaveLength(1);
    expect(byCpf.json.cobs).toHaveLength(2);
    expect(byCpf.json.parametros.cpf).toBe('12345678909');
    expect(byCnpj.json.cobs).toEqual([
      expect.objectContaining({ devedor: expect.objectContaining({ cnpj: '12ABC34501DE35' }) }),
    ]);
    expect(active.json.cobs).toHaveLength(1);
    expect(lote.json.cobs).toEqual([]);

    const refused = [
      await call('GET', `/cobv?${period}&cpf=12345678909&cnpj=11222333000181`),
      await call('GET', '/cobv?inicio=2025-01-02T00:00:00Z&fim=2025-01-01T00:00:00Z'),
      await call('GET', `/cobv?${period}&paginacao.paginaAtual=-1`),
      await call('GET', `/cobv?${period}&status=VENCIDA`),
      await call('GET', '/cobv?inicio=ontem&fim=hoje'),
    ];
    for (const reply of refused) {
      expect(reply.status).toBe(400);
      expect(reply.json.type).toMatch(/CobVConsultaInvalida$/);
    }
  });

  it('takes a location made for it (POST /loc tipoCob cobv), and only one cobv per location', async () => {
    const { call, today } = await start();
    const due = plus(await today(), 5);
    const loc = await call('POST', '/loc', { tipoCob: 'cobv' });
    expect(loc.status).toBe(201);
    expect(loc.violations).toEqual([]);
    expect(loc.json).toMatchObject({ tipoCob: 'cobv' });
    expect(loc.json.location).toMatch(/\/qr\/v2\/cobv\//);
    const txid = newTxid();
    const at = await call(
      'PUT',
      `/cobv/${txid}`,
      cobvBody(due, { loc: { id: loc.json.id, tipoCob: 'cobv' } }),
    );
    const taken = await call(
      'PUT',
      `/cobv/${newTxid()}`,
      cobvBody(due, { loc: { id: loc.json.id, tipoCob: 'cobv' } }),
    );
    const read = await call('GET', `/loc/${String(loc.json.id)}`);
    expect(at.json).toMatchObject({
      loc: { id: loc.json.id, tipoCob: 'cobv', txid },
      location: loc.json.location,
    });
    expect(taken.status).toBe(400);
    expect(taken.json.violacoes[0].razao).toMatch(/já está sendo utilizado/);
    expect(read.json).toMatchObject({ tipoCob: 'cobv', txid });
    // A cob cannot move to a cobv's location.
    const cobTxid = newTxid();
    await call('PUT', `/cob/${cobTxid}`, {
      calendario: { expiracao: 3600 },
      valor: { original: '1.00' },
      chave: PIX_KEY,
    });
    const free = await call('POST', '/loc', { tipoCob: 'cobv' });
    const move = await call('PATCH', `/cob/${cobTxid}`, { loc: { id: free.json.id, tipoCob: 'cob' } });
    expect(move.status).toBe(400);
  });

  it('keeps its clock in the books: a restart resumes at the date it had reached; it never goes back', async () => {
    const books = await booksForThisTest(afterThisTest);
    const first = await start({ books });
    const before = await first.today();
    const moved = await first.advance(40);
    expect(moved.json.hoje).toBe(plus(before, 40));
    const back = await first.call('POST', '/sandbox/relogio/avancar', { dias: -1 });
    expect(back.status).toBe(400);
    await first.running.close();
    const second = await start({ books });
    expect(await second.today()).toBe(plus(before, 40));
    // A cob made now expires by the moved clock too.
    const txid = newTxid();
    await second.call('PUT', `/cob/${txid}`, {
      calendario: { expiracao: 60 },
      valor: { original: '1.00' },
      chave: PIX_KEY,
    });
    await second.call('POST', '/sandbox/relogio/avancar', { segundos: 61 });
    const late = await second.call('POST', `/cob/pagar/${txid}`, {});
    expect(late.status).toBe(400);
    expect(late.json.detail).toMatch(/expirada/);
  });
  it('checks a PATCH against the cobv as it is when locked: a PUT racing it never lets an abatimento reach the original', async () => {
    const { call, today } = await start();
    const due = plus(await today(), 10);
    for (let round = 0; round < 15; round += 1) {
      const txid = newTxid();
      expect((await call('PUT', `/cobv/${txid}`, cobvBody(due))).status).toBe(201);
      // R$ 50,00 off is valid on the R$ 100,00 the PATCH read, not on the R$ 10,00 the racing PUT makes it.
      const lowered = cobvBody(due);
      const [put, patch] = await Promise.all([
        call('PUT', `/cobv/${txid}`, { ...lowered, valor: { ...lowered.valor, original: '10.00' } }),
        call('PATCH', `/cobv/${txid}`, { valor: { abatimento: { modalidade: 1, valorPerc: '50.00' } } }),
      ]);
      expect(put.status).toBe(201);
      expect([200, 400]).toContain(patch.status);
      expect(patch.violations).toEqual([]);
      // Either order ends with the PUT's cobv, which states every rule (no abatimento): a PATCH taken first was
      // applied to the R$ 100,00 and then replaced, one taken after was refused.
      const stored = (await call('GET', `/cobv/${txid}`)).json;
      const abatimento = stored.valor.abatimento?.valorPerc ?? '0.00';
      expect({ round, original: stored.valor.original, abatimento }).toEqual({
        round,
        original: '10.00',
        abatimento: '0.00',
      });
      if (patch.status === 200)
        expect(patch.json.valor).toMatchObject({
          original: '100.00',
          abatimento: { modalidade: 1, valorPerc: '50.00' },
        });
      else expect(patch.json.violacoes[0].propriedade).toBe('cobv.valor.abatimento');
    }
  });

  it('refuses an abatimento that comes to the whole original once rounded, and rules whose amount API Pix cannot write', async () => {
    const { call, today } = await start();
    const due = plus(await today(), 10);
    const body = cobvBody(due);
    // 99.50 % of R$ 1,00 is 99.5 centavos, charged as R$ 1,00: the whole original, which the document refuses.
    const whole = await call('PUT', `/cobv/${newTxid()}`, {
      ...body,
      valor: { original: '1.00', abatimento: { modalidade: 2, valorPerc: '99.50' } },
    });
    expect(whole.status).toBe(400);
    expect(whole.violations).toEqual([]);
    expect(whole.json.violacoes[0].propriedade).toBe('cobv.valor.abatimento');
    // 99.40 % is 99 centavos: one centavo is left to pay.
    const txid = newTxid();
    const almost = await call('PUT', `/cobv/${txid}`, {
      ...body,
      valor: { original: '1.00', abatimento: { modalidade: 2, valorPerc: '99.40' } },
    });
    expect(almost.status).toBe(201);
    const paid = await call('POST', `/cobv/pagar/${txid}`, {});
    expect(paid.status).toBe(200);
    const [pix] = (await call('GET', `/cobv/${txid}`)).json.pix;
    expect(pix).toMatchObject({
      valor: '0.01',
      componentesValor: { original: { valor: '1.00' }, abatimento: { valor: '0.99' } },
    });
    expect(pix.componentesValor.desconto).toBeUndefined();
    // R$ 9.999.999.999,99 a day of interest over 5 days late cannot be written as an API Pix amount.
    const huge = await call('PUT', `/cobv/${newTxid()}`, {
      ...body,
      valor: { original: '100.00', juros: { modalidade: 1, valorPerc: '9999999999.99' } },
    });
    expect(huge.status).toBe(400);
    expect(huge.violations).toEqual([]);
    expect(huge.json.violacoes[0].propriedade).toBe('cobv.valor');
  });

  it('counts the business days to a due date centuries away (a discount of one centavo for each)', async () => {
    const { call, payload, today } = await start();
    const txid = newTxid();
    const calendario = { dataDeVencimento: '9999-12-30', validadeAposVencimento: 5 };
    const created = await call('PUT', `/cobv/${txid}`, {
      ...cobvBody(calendario.dataDeVencimento),
      valor: { original: '1000000.00', desconto: { modalidade: 4, valorPerc: '0.01' } },
    });
    expect(created.status).toBe(201);
    // The days of anticipation, one at a time: [today, due) (letting the connections' events in now and then).
    const due = payableWindow(calendario).due;
    let businessDays = 0;
    for (let day = dayOf(await today())!; day < due; day += 1) {
      if (isBusinessDay(day)) businessDays += 1;
      if (day % 50_000 === 0) await new Promise(setImmediate);
    }
    const read = await payload(created.json.location);
    expect(read.status).toBe(200);
    expect(read.violations).toEqual([]);
    expect(read.payload!.valor.final).toBe(((100_000_000 - businessDays) / 100).toFixed(2));
  });

  it('shares one date between two simulators on the same books: a move through one is the date of the other', async () => {
    const books = await booksForThisTest(afterThisTest);
    const first = await start({ books });
    const second = await start({ books });
    const before = await second.today();
    await first.advance(3);
    expect(await first.today()).toBe(plus(before, 3));
    expect(await second.today()).toBe(plus(before, 3));
    // And what the second one is paid on is that date: a cobv due before it is paid late, with its fine. A due date on
    // a weekend or holiday moves to the next business day, so the move goes one day past that one.
    const txid = newTxid();
    const dueDate = plus(before, 3);
    expect((await second.call('PUT', `/cobv/${txid}`, cobvBody(dueDate))).status).toBe(201);
    let movedDue = dayOf(dueDate)!;
    while (!isBusinessDay(movedDue)) movedDue += 1;
    await first.advance(movedDue - dayOf(dueDate)! + 1);
    const paid = await second.call('POST', `/cobv/pagar/${txid}`, {});
    expect(paid.status).toBe(200);
    const [pix] = (await second.call('GET', `/cobv/${txid}`)).json.pix;
    expect(pix.componentesValor.multa).toEqual({ valor: '2.00' });
  });
});
