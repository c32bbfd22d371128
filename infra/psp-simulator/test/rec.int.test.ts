import { closeAfterEachTest, waitFor } from '@gateway/testkit-core';
import { brasiliaDay, dateOf } from '../src/business-days';
import { ApiPixSpec } from './support/api-pix-spec';
import {
  OTHER_KEY,
  PIX_KEY,
  booksForThisTest,
  plus,
  startApiPixSimulator,
} from './support/api-pix-simulator';
import { startCallbackReceiver } from './support/callback-receiver';

const afterThisTest = closeAfterEachTest();
let spec: ApiPixSpec;

beforeAll(async () => {
  spec = await ApiPixSpec.load();
});

function start(options?: { books?: string; pixKey?: string; clientId?: string }) {
  return startApiPixSimulator(spec, afterThisTest, options);
}

type Started = Awaited<ReturnType<typeof start>>;

function recBody(dataInicial: string, extra: Record<string, unknown> = {}) {
  return {
    vinculo: {
      contrato: '63100862',
      devedor: { cpf: '45164632454', nome: 'Fulano de Tal' },
      objeto: 'Streaming de música',
    },
    calendario: {
      dataInicial,
      ...(/^\d{4}-\d{2}-\d{2}$/.test(dataInicial) ? { dataFinal: plus(dataInicial, 365) } : {}),
      periodicidade: 'MENSAL',
    },
    valor: { valorRec: '35.00' },
    politicaRetentativa: 'PERMITE_3R_7D',
    ...extra,
  };
}

function solicRecBody(idRec: string, expiresInDays = 5) {
  return {
    idRec,
    calendario: { dataExpiracaoSolicitacao: new Date(Date.now() + expiresInDays * 86_400_000).toISOString() },
    destinatario: { agencia: '2569', conta: '550689', cpf: '15231470163', ispbParticipante: '91193552' },
  };
}

/** A recurrence and a request for its authorization, both checked against the document. */
async function recAndRequest({ call, today }: Started, extra: Record<string, unknown> = {}) {
  const rec = await call('POST', '/rec', recBody(plus(await today(), 3), extra));
  expect(rec.status).toBe(201);
  expect(rec.violations).toEqual([]);
  const solicRec = await call('POST', '/solicrec', solicRecBody(rec.json.idRec));
  expect(solicRec.status).toBe(201);
  expect(solicRec.violations).toEqual([]);
  return { idRec: rec.json.idRec as string, idSolicRec: solicRec.json.idSolicRec as string };
}

describe('Pix Automático: recurrences and the payer’s authorization (API Pix 2.9.0, journey 1)', () => {
  it('creates a recurrence, asks the payer, and the payer’s bank approves it, told to the webhookrec', async () => {
    const started = await start();
    const { call, sandbox, today } = started;
    const hook = await startCallbackReceiver();
    afterThisTest(() => hook.close());
    expect(spec.scopesOf('POST', '/rec')).toEqual(['rec.write']);
    expect(spec.scopesOf('GET', '/solicrec/SC112223332025010100000000001')).toEqual(['solicrec.read']);
    expect(spec.scopesOf('PUT', '/webhookrec')).toEqual(['webhookrec.write']);

    const webhook = await call('PUT', '/webhookrec', { webhookUrl: `${hook.url}/rec-hook` });
    expect(webhook.requestViolations).toEqual([]);
    expect(webhook.status).toBe(200);
    const webhookRead = await call('GET', '/webhookrec');
    expect(webhookRead.json).toMatchObject({ webhookUrl: `${hook.url}/rec-hook` });
    expect(webhookRead.violations).toEqual([]);

    const first = plus(await today(), 3);
    const created = await call('POST', '/rec', recBody(first));
    expect(created.requestViolations).toEqual([]);
    expect(created.status).toBe(201);
    expect(created.violations).toEqual([]);
    const idRec = created.json.idRec as string;
    // R, R (retries allowed), the agent (8), the day of creation, 11 alphanumerics.
    expect(idRec).toMatch(new RegExp(`^RR11222333${(await today()).replace(/-/g, '')}[a-zA-Z0-9]{11}$`));
    expect(created.json).toMatchObject({
      status: 'CRIADA',
      valor: { valorRec: '35.00' },
      politicaRetentativa: 'PERMITE_3R_7D',
      recebedor: { cnpj: '11222333000181' },
      ativacao: { tipoJornada: 'AGUARDANDO_DEFINICAO' },
      atualizacao: [{ status: 'CRIADA' }],
    });

    const asked = await call('POST', '/solicrec', solicRecBody(idRec));
    expect(asked.requestViolations).toEqual([]);
    expect(asked.status).toBe(201);
    expect(asked.violations).toEqual([]);
    expect(asked.json).toMatchObject({
      idRec,
      status: 'CRIADA',
      recPayload: { idRec, recebedor: { ispbParticipante: '11222333' } },
    });
    expect(asked.json.idSolicRec).toMatch(/^SC11222333\d{8}[a-zA-Z0-9]{11}$/);

    const accepted = await sandbox(`/sandbox/solicrec/${asked.json.idSolicRec}/aceitar`, {
      pagador: { codMun: '2611606' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.json.status).toBe('ACEITA');
    expect(accepted.json.atualizacao.map((step: { status: string }) => step.status)).toEqual([
      'CRIADA',
      'ENVIADA',
      'RECEBIDA',
      'ACEITA',
    ]);

    const read = await call('GET', `/rec/${idRec}`);
    expect(read.status).toBe(200);
    expect(read.violations).toEqual([]);
    expect(read.json).toMatchObject({
      status: 'APROVADA',
      pagador: { cpf: '15231470163', ispbParticipante: '91193552', codMun: '2611606' },
      ativacao: { tipoJornada: 'JORNADA_1' },
      solicitacao: [{ idSolicRec: asked.json.idSolicRec, status: 'ACEITA' }],
    });
    expect(read.json.atualizacao.map((step: { status: string }) => step.status)).toEqual([
      'CRIADA',
      'APROVADA',
    ]);

    const solicRead = await call('GET', `/solicrec/${asked.json.idSolicRec}`);
    expect(solicRead.violations).toEqual([]);
    expect(solicRead.json.status).toBe('ACEITA');

    await waitFor(() => hook.bodies.length === 1, { what: 'the approval told to the webhookrec' });
    expect(spec.validateRecCallback(hook.bodies[0]!)).toEqual([]);
    expect(JSON.parse(hook.bodies[0]!)).toMatchObject({
      recs: [{ idRec, status: 'APROVADA', ativacao: { tipoJornada: 'JORNADA_1' } }],
    });

    // Answered once: a second answer (the same request twice, or the other answer) changes nothing.
    expect((await sandbox(`/sandbox/solicrec/${asked.json.idSolicRec}/aceitar`)).status).toBe(400);
    expect((await sandbox(`/sandbox/solicrec/${asked.json.idSolicRec}/rejeitar`)).status).toBe(400);
    // An approved recurrence takes no new request.
    const again = await call('POST', '/solicrec', solicRecBody(idRec));
    expect(again.status).toBe(400);
    expect(again.violations).toEqual([]);

    const deleted = await call('DELETE', '/webhookrec');
    expect(deleted.status).toBe(204);
    expect((await call('GET', '/webhookrec')).status).toBe(404);
  });

  it('lists the account’s recurrences by period, debtor, status and page', async () => {
    const started = await start();
    const { call, today } = started;
    const inicio = new Date(Date.now() - 60_000).toISOString();
    const first = plus(await today(), 1);
    const a = await call('POST', '/rec', recBody(first));
    const b = await call(
      'POST',
      '/rec',
      recBody(first, { vinculo: { contrato: 'x', devedor: { cnpj: '11222333000181', nome: 'Empresa' } } }),
    );
    const c = await call('POST', '/rec', recBody(first, { recebedor: { convenio: 'Master' } }));
    await call('PATCH', `/rec/${c.json.idRec}`, { status: 'CANCELADA' });
    const fim = new Date(Date.now() + 60_000).toISOString();
    const q = (extra: string) => call('GET', `/rec?inicio=${inicio}&fim=${fim}${extra}`);

    const all = await q('');
    expect(all.status).toBe(200);
    expect(all.violations).toEqual([]);
    expect(all.json.recs.map((rec: { idRec: string }) => rec.idRec)).toEqual([
      a.json.idRec,
      b.json.idRec,
      c.json.idRec,
    ]);
    expect((await q('&cnpj=11222333000181')).json.recs).toHaveLength(1);
    expect((await q('&cpf=45164632454')).json.recs).toHaveLength(2);
    expect((await q('&status=CANCELADA')).json.recs).toMatchObject([{ idRec: c.json.idRec }]);
    expect((await q('&convenio=Master')).json.recs).toHaveLength(1);
    const page = await q('&paginacao.itensPorPagina=2&paginacao.paginaAtual=1');
    expect(page.json.recs).toHaveLength(1);
    expect(page.json.parametros.paginacao).toMatchObject({
      quantidadeDePaginas: 2,
      quantidadeTotalDeItens: 3,
    });
    for (const bad of [
      '&cpf=45164632454&cnpj=11222333000181',
      '&status=ATIVA',
      '&paginacao.paginaAtual=-1',
    ]) {
      const refused = await q(bad);
      expect(refused.status).toBe(400);
      expect(refused.json.type).toMatch(/RecConsultaInvalida$/);
      expect(refused.violations).toEqual([]);
    }
    const backwards = await call('GET', `/rec?inicio=${fim}&fim=${inicio}`);
    expect(backwards.status).toBe(400);
  });

  it('ends a recurrence as the document states: rejected by the payer, cancelled by the receiver or the payer', async () => {
    const started = await start();
    const { call, sandbox } = started;
    const hook = await startCallbackReceiver();
    afterThisTest(() => hook.close());
    await call('PUT', '/webhookrec', { webhookUrl: hook.url });

    const rejected = await recAndRequest(started);
    const rejection = await sandbox(`/sandbox/solicrec/${rejected.idSolicRec}/rejeitar`, { codigo: 'AP13' });
    expect(rejection.json.status).toBe('REJEITADA');
    const rejectedRec = await call('GET', `/rec/${rejected.idRec}`);
    expect(rejectedRec.violations).toEqual([]);
    expect(rejectedRec.json).toMatchObject({
      status: 'REJEITADA',
      encerramento: { rejeicao: { codigo: 'AP13' } },
    });

    // The receiver cancels one still waiting for the payer: its request in flight ends too.
    const byReceiver = await recAndRequest(started);
    const cancel = await call('PATCH', `/rec/${byReceiver.idRec}`, { status: 'CANCELADA' });
    expect(cancel.requestViolations).toEqual([]);
    expect(cancel.status).toBe(200);
    expect(cancel.violations).toEqual([]);
    expect(cancel.json).toMatchObject({
      status: 'CANCELADA',
      encerramento: { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR' } },
    });
    expect((await call('GET', `/solicrec/${byReceiver.idSolicRec}`)).json.status).toBe('CANCELADA');
    // The same cancellation twice: the second meets a cancelled recurrence.
    const twice = await call('PATCH', `/rec/${byReceiver.idRec}`, { status: 'CANCELADA' });
    expect(twice.status).toBe(400);
    expect(twice.json.type).toMatch(/RecOperacaoInvalida$/);
    expect(twice.violations).toEqual([]);
    expect((await sandbox(`/sandbox/solicrec/${byReceiver.idSolicRec}/aceitar`)).status).toBe(400);

    // The payer cancels what they approved (their bank tells the PSP); not what they never approved.
    const byPayer = await recAndRequest(started);
    expect((await sandbox(`/sandbox/rec/${byPayer.idRec}/cancelar`)).status).toBe(400);
    await sandbox(`/sandbox/solicrec/${byPayer.idSolicRec}/aceitar`);
    const payerCancel = await sandbox(`/sandbox/rec/${byPayer.idRec}/cancelar`);
    expect(payerCancel.status).toBe(200);
    const payerCancelled = await call('GET', `/rec/${byPayer.idRec}`);
    expect(payerCancelled.violations).toEqual([]);
    expect(payerCancelled.json).toMatchObject({
      status: 'CANCELADA',
      encerramento: { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'SLDB' } },
    });
    expect(payerCancelled.json.atualizacao.map((step: { status: string }) => step.status)).toEqual([
      'CRIADA',
      'APROVADA',
      'CANCELADA',
    ]);

    // REJEITADA, CANCELADA (receiver), APROVADA then CANCELADA (payer): four callbacks, each valid.
    await waitFor(() => hook.bodies.length === 4, { what: 'four recurrence callbacks' });
    for (const body of hook.bodies) expect(spec.validateRecCallback(body)).toEqual([]);
    const statuses = hook.bodies.flatMap((body) =>
      JSON.parse(body).recs.map((rec: { status: string }) => rec.status),
    );
    expect(statuses).toEqual(['REJEITADA', 'CANCELADA', 'APROVADA', 'CANCELADA']);
  });

  it('revises a recurrence only as the document allows', async () => {
    const started = await start();
    const { call, sandbox, today } = started;
    const { idRec, idSolicRec } = await recAndRequest(started);
    const later = plus(await today(), 10);
    const revised = await call('PATCH', `/rec/${idRec}`, {
      vinculo: { devedor: { nome: 'Fulano de Tal Junior' } },
      calendario: { dataInicial: later },
      ativacao: { dadosJornada: { txid: '33beb661beda44a8928fef47dbeb2dc5' } },
    });
    expect(revised.requestViolations).toEqual([]);
    expect(revised.status).toBe(200);
    expect(revised.violations).toEqual([]);
    expect(revised.json).toMatchObject({
      vinculo: { devedor: { nome: 'Fulano de Tal Junior', cpf: '45164632454' } },
      calendario: { dataInicial: later },
      ativacao: {
        tipoJornada: 'AGUARDANDO_DEFINICAO',
        dadosJornada: { txid: '33beb661beda44a8928fef47dbeb2dc5' },
      },
      status: 'CRIADA',
    });
    const before = await call('PATCH', `/rec/${idRec}`, {
      calendario: { dataInicial: plus(await today(), -1) },
    });
    expect(before.status).toBe(400);
    expect(before.json.violacoes).toMatchObject([{ propriedade: 'rec.calendario.dataInicial' }]);
    const loc = await call('PATCH', `/rec/${idRec}`, { loc: 108 });
    expect(loc.json.violacoes).toMatchObject([{ razao: 'O location referenciado por rec.loc inexiste.' }]);

    await sandbox(`/sandbox/solicrec/${idSolicRec}/aceitar`);
    const approvedDate = await call('PATCH', `/rec/${idRec}`, {
      calendario: { dataInicial: plus(later, 1) },
    });
    expect(approvedDate.status).toBe(400);
    expect(approvedDate.json.violacoes[0].razao).toMatch(/somente pode ser alterado quando .* CRIADA/);
    const approvedLoc = await call('PATCH', `/rec/${idRec}`, { loc: 108 });
    expect(approvedLoc.json.violacoes[0].razao).toMatch(/rec.loc somente pode ser alterado/);
    const wrongStatus = await call('PATCH', `/rec/${idRec}`, { status: 'APROVADA' });
    expect(wrongStatus.status).toBe(400);
    expect(wrongStatus.json.violacoes).toMatchObject([{ propriedade: 'rec.status' }]);
    for (const reply of [before, loc, approvedDate, approvedLoc, wrongStatus]) {
      expect(reply.json.type).toMatch(/RecOperacaoInvalida$/);
      expect(reply.violations).toEqual([]);
    }
  });

  it('answers the document’s violations of POST /rec and hostile input as RecOperacaoInvalida', async () => {
    const { call, today } = await start();
    const day = await today();
    const cases: Array<[string, unknown, string]> = [
      ['first date before creation', recBody(plus(day, -1)), 'rec.calendario.dataInicial'],
      [
        'last date before the first',
        recBody(plus(day, 5), {
          calendario: { dataInicial: plus(day, 5), dataFinal: plus(day, 4), periodicidade: 'MENSAL' },
        }),
        'rec.calendario.dataFinal',
      ],
      [
        'both amounts',
        recBody(day, { valor: { valorRec: '1.00', valorMinimoRecebedor: '1.00' } }),
        'rec.valor',
      ],
      ['an amount out of schema', recBody(day, { valor: { valorRec: '1.234' } }), 'rec.valor.valorRec'],
      [
        'a periodicity out of schema',
        recBody(day, { calendario: { dataInicial: day, periodicidade: 'DIARIA' } }),
        'rec.calendario.periodicidade',
      ],
      [
        'a retry policy out of schema',
        recBody(day, { politicaRetentativa: 'SEMPRE' }),
        'rec.politicaRetentativa',
      ],
      ['a location that does not exist', recBody(day, { loc: 108 }), 'rec.loc'],
      [
        'a CPF with wrong check digits',
        recBody(day, { vinculo: { contrato: '1', devedor: { cpf: '45164632455', nome: 'X' } } }),
        'rec.vinculo.devedor.cpf',
      ],
      [
        'a CNPJ with wrong check digits',
        recBody(day, { vinculo: { contrato: '1', devedor: { cnpj: '11222333000182', nome: 'X' } } }),
        'rec.vinculo.devedor.cnpj',
      ],
      ['a date in another format', recBody('01/12/2026'), 'rec.calendario.dataInicial'],
      [
        'a date that does not exist',
        recBody(day, { calendario: { dataInicial: '2026-02-30', periodicidade: 'MENSAL' } }),
        'rec.calendario.dataInicial',
      ],
      [
        'a NUL in the contract',
        recBody(day, { vinculo: { contrato: 'a\u0000b', devedor: { cpf: '45164632454', nome: 'X' } } }),
        'rec.vinculo.contrato',
      ],
      [
        'a huge name',
        recBody(day, {
          vinculo: { contrato: '1', devedor: { cpf: '45164632454', nome: 'x'.repeat(10_000) } },
        }),
        'rec.vinculo.devedor.nome',
      ],
      ['no debtor', recBody(day, { vinculo: { contrato: '1' } }), 'rec.vinculo.devedor'],
    ];
    for (const [what, body, propriedade] of cases) {
      const reply = await call('POST', '/rec', body);
      expect({ what, status: reply.status }).toEqual({ what, status: 400 });
      expect(reply.json.type).toMatch(/RecOperacaoInvalida$/);
      expect(reply.json.violacoes.map((v: { propriedade: string }) => v.propriedade)).toContain(propriedade);
      expect(reply.violations).toEqual([]);
    }
    const malformed = await call('POST', '/rec', undefined, undefined, '{"vinculo": ');
    expect(malformed.status).toBe(400);
    expect(malformed.violations).toEqual([]);
    const huge = await call('POST', '/rec', undefined, undefined, JSON.stringify({ x: 'y'.repeat(100_000) }));
    expect(huge.status).toBe(413 === huge.status ? 413 : 400);
    // The same POST twice makes two recurrences (the document gives POST no idempotency): two ids.
    const one = await call('POST', '/rec', recBody(day));
    const two = await call('POST', '/rec', recBody(day));
    expect(one.json.idRec).not.toBe(two.json.idRec);
  });

  it('answers the document’s violations of /solicrec and lets the receiver cancel a request in flight', async () => {
    const started = await start();
    const { call, today } = started;
    const rec = await call('POST', '/rec', recBody(plus(await today(), 2)));
    const idRec = rec.json.idRec as string;
    const past = await call('POST', '/solicrec', {
      ...solicRecBody(idRec),
      calendario: { dataExpiracaoSolicitacao: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(past.status).toBe(400);
    expect(past.json.violacoes).toMatchObject([
      { propriedade: 'solicrec.calendario.dataExpiracaoSolicitacao' },
    ]);
    const badDest = await call('POST', '/solicrec', {
      ...solicRecBody(idRec),
      destinatario: { conta: '1', ispbParticipante: '9119355', cpf: '15231470164' },
    });
    expect(badDest.status).toBe(400);
    expect(badDest.json.violacoes.map((v: { propriedade: string }) => v.propriedade).sort()).toEqual([
      'solicrec.destinatario.cpf',
      'solicrec.destinatario.ispbParticipante',
    ]);
    const badDate = await call('POST', '/solicrec', {
      ...solicRecBody(idRec),
      calendario: { dataExpiracaoSolicitacao: '2026-12-01' },
    });
    expect(badDate.status).toBe(400);
    const unknown = await call('POST', '/solicrec', solicRecBody('RN1122233320260101abcdefghijk'));
    expect(unknown.status).toBe(400);

    const first = await call('POST', '/solicrec', solicRecBody(idRec));
    expect(first.status).toBe(201);
    const second = await call('POST', '/solicrec', solicRecBody(idRec));
    expect(second.status).toBe(400);
    expect(second.json.violacoes[0].razao).toBe(
      'Existe uma solicitação ativa referente ao mesmo solicrec.idRec.',
    );

    const cancel = await call('PATCH', `/solicrec/${first.json.idSolicRec}`, { status: 'CANCELADA' });
    expect(cancel.requestViolations).toEqual([]);
    expect(cancel.status).toBe(201);
    expect(cancel.violations).toEqual([]);
    expect(cancel.json.atualizacao.map((step: { status: string }) => step.status)).toEqual([
      'CRIADA',
      'CANCELADA',
    ]);
    const twice = await call('PATCH', `/solicrec/${first.json.idSolicRec}`, { status: 'CANCELADA' });
    expect(twice.status).toBe(400);
    expect(twice.json.type).toMatch(/SolicRecOperacaoInvalida$/);
    // With none in flight, the recurrence (still CRIADA) takes a new request.
    expect((await call('POST', '/solicrec', solicRecBody(idRec))).status).toBe(201);
    const missing = await call('GET', '/solicrec/SC112223332026010100000000001');
    expect(missing.status).toBe(404);
    expect(missing.json.type).toMatch(/SolicRecNaoEncontrada$/);
    for (const reply of [past, badDest, badDate, unknown, second, twice, missing])
      expect(reply.violations).toEqual([]);
  });

  it('keeps each account’s recurrences its own, and each operation to its scope', async () => {
    const books = await booksForThisTest(afterThisTest);
    const mine = await start({ books });
    const theirs = await start({ books, pixKey: OTHER_KEY, clientId: 'other' });
    const { idRec, idSolicRec } = await recAndRequest(mine);
    const read = await theirs.call('GET', `/rec/${idRec}`);
    expect(read.status).toBe(404);
    expect(read.json.type).toMatch(/RecNaoEncontrada$/);
    expect(read.violations).toEqual([]);
    expect((await theirs.call('PATCH', `/rec/${idRec}`, { status: 'CANCELADA' })).status).toBe(404);
    expect((await theirs.call('GET', `/solicrec/${idSolicRec}`)).status).toBe(404);
    expect((await theirs.call('POST', '/solicrec', solicRecBody(idRec))).status).toBe(400);
    expect((await theirs.sandbox(`/sandbox/solicrec/${idSolicRec}/aceitar`)).status).toBe(404);

    const readOnly = await mine.token('rec.read');
    const refused = await mine.call('POST', '/rec', recBody(await mine.today()), readOnly);
    expect(refused.status).toBe(403);
    expect(refused.violations).toEqual([]);
    expect((await mine.call('GET', `/rec/${idRec}`, undefined, readOnly)).status).toBe(200);
    expect((await mine.call('GET', `/solicrec/${idSolicRec}`, undefined, readOnly)).status).toBe(403);
  });

  it('ends in one state when the payer’s answers and the receiver’s cancellation race', async () => {
    const started = await start();
    const { call, sandbox } = started;
    for (let round = 0; round < 4; round++) {
      const { idRec, idSolicRec } = await recAndRequest(started);
      const [accept, reject, cancel] = await Promise.all([
        sandbox(`/sandbox/solicrec/${idSolicRec}/aceitar`),
        sandbox(`/sandbox/solicrec/${idSolicRec}/rejeitar`),
        call('PATCH', `/rec/${idRec}`, { status: 'CANCELADA' }),
      ]);
      // At most one answer of the payer is taken.
      expect([accept.status, reject.status].filter((status) => status === 200).length).toBeLessThanOrEqual(1);
      const rec = (await call('GET', `/rec/${idRec}`)).json;
      const solicRec = (await call('GET', `/solicrec/${idSolicRec}`)).json;
      const history = rec.atualizacao.map((step: { status: string }) => step.status);
      if (reject.status === 200) {
        expect(rec.status).toBe('REJEITADA');
        expect(solicRec.status).toBe('REJEITADA');
        expect(cancel.status).toBe(400);
      } else if (accept.status === 200) {
        // Approved first, then cancelled by the receiver (or not, had the cancel come first it would refuse the accept).
        expect(solicRec.status).toBe('ACEITA');
        expect(history.slice(0, 2)).toEqual(['CRIADA', 'APROVADA']);
        expect(rec.status).toBe(cancel.status === 200 ? 'CANCELADA' : 'APROVADA');
      } else {
        expect(cancel.status).toBe(200);
        expect(rec.status).toBe('CANCELADA');
        expect(solicRec.status).toBe('CANCELADA');
        expect(history).toEqual(['CRIADA', 'CANCELADA']);
      }
    }
  });

  it('expires requests and recurrences as the clock moves, and keeps everything across a restart', async () => {
    const books = await booksForThisTest(afterThisTest);
    const first = await start({ books });
    const hook = await startCallbackReceiver();
    afterThisTest(() => hook.close());
    await first.call('PUT', '/webhookrec', { webhookUrl: hook.url });
    const { idRec, idSolicRec } = await recAndRequest(first);
    const approved = await recAndRequest(first);
    await first.sandbox(`/sandbox/solicrec/${approved.idSolicRec}/aceitar`);
    const before = (await first.call('GET', `/rec/${approved.idRec}`)).json;

    await first.running.close();
    const second = await start({ books });
    const kept = await second.call('GET', `/rec/${approved.idRec}`);
    expect(kept.json).toEqual(before);

    // Six days on: the request (five days) has expired, and the recurrence's first date (in three) passed unauthorized.
    await second.advance(6);
    const solicRec = await second.call('GET', `/solicrec/${idSolicRec}`);
    expect(solicRec.json.status).toBe('EXPIRADA');
    expect(solicRec.violations).toEqual([]);
    const rec = await second.call('GET', `/rec/${idRec}`);
    expect(rec.json.status).toBe('EXPIRADA');
    expect(rec.violations).toEqual([]);
    expect((await second.call('GET', `/rec/${approved.idRec}`)).json.status).toBe('APROVADA');
    await waitFor(
      () =>
        hook.bodies.some((body) =>
          JSON.parse(body).recs.some(
            (r: { idRec: string; status: string }) => r.idRec === idRec && r.status === 'EXPIRADA',
          ),
        ),
      { what: 'the expiry told to the webhookrec' },
    );
    // A year and more on, the approved one has passed its last date.
    await second.advance(370);
    expect((await second.call('GET', `/rec/${approved.idRec}`)).json.status).toBe('EXPIRADA');
    for (const body of hook.bodies) expect(spec.validateRecCallback(body)).toEqual([]);
  });
});

describe('Pix Automático: recurrence locations, payloads and the QR journeys (API Pix 2.9.0)', () => {
  it('serves a recurrence at a location of its own, as a signed payload and in a composed QR (journey 2)', async () => {
    const { running, call, today } = await start();
    expect(spec.scopesOf('POST', '/locrec')).toEqual(['payloadlocationrec.write']);
    const loc = await call('POST', '/locrec');
    expect(loc.requestViolations).toEqual([]);
    expect(loc.status).toBe(201);
    expect(loc.violations).toEqual([]);
    expect(loc.json.location).toMatch(/\/qr\/v2\/rec\/[0-9a-f]{32}$/);
    const created = await call('POST', '/rec', recBody(plus(await today(), 3), { loc: loc.json.id }));
    expect(created.requestViolations).toEqual([]);
    expect(created.status).toBe(201);
    expect(created.violations).toEqual([]);
    expect(created.json.loc).toMatchObject({
      id: loc.json.id,
      location: loc.json.location,
      idRec: created.json.idRec,
    });
    const taken = await call('POST', '/rec', recBody(plus(await today(), 3), { loc: loc.json.id }));
    expect(taken.json.violacoes[0].razao).toBe(
      'O location referenciado por rec.loc já está sendo utilizado por outra recorrência.',
    );
    const missing = await call('POST', '/rec', recBody(plus(await today(), 3), { loc: 999_999 }));
    expect(missing.json.violacoes[0].razao).toBe('O location referenciado por rec.loc inexiste.');

    const read = await call('GET', `/rec/${created.json.idRec}`);
    expect(read.violations).toEqual([]);
    expect(read.json.dadosQR.jornada).toBe('JORNADA_2');
    expect(read.json.dadosQR.pixCopiaECola).toContain(
      `80${String(loc.json.location.length + 22).padStart(2, '0')}0014br.gov.bcb.pix25`,
    );
    const locRead = await call('GET', `/locrec/${loc.json.id}`);
    expect(locRead.violations).toEqual([]);
    expect(locRead.json.idRec).toBe(created.json.idRec);

    const payload = await fetch(`http://${loc.json.location}`);
    const text = await payload.text();
    const reply = {
      status: payload.status,
      contentType: payload.headers.get('content-type') ?? '',
      body: text,
    };
    const path = `/rec/${loc.json.location.split('/').pop()}`;
    expect(spec.validateResponse('GET', path, reply, '/rec/{recUrlAccessToken}')).toEqual([]);
    expect(JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString('utf8'))).toMatchObject({
      idRec: created.json.idRec,
      recebedor: { ispbParticipante: '11222333' },
    });

    const inicio = new Date(Date.now() - 60_000).toISOString();
    const fim = new Date(Date.now() + 60_000).toISOString();
    const listed = await call('GET', `/locrec?inicio=${inicio}&fim=${fim}&idRecPresente=true`);
    expect(listed.violations).toEqual([]);
    expect(listed.json.loc).toMatchObject([{ id: loc.json.id, idRec: created.json.idRec }]);

    const unlinked = await call('DELETE', `/locrec/${loc.json.id}/idRec`);
    expect(unlinked.status).toBe(200);
    expect(unlinked.violations).toEqual([]);
    expect(unlinked.json.idRec).toBeUndefined();
    const after = await call('GET', `/rec/${created.json.idRec}`);
    expect(after.json.loc).toBeUndefined();
    expect(after.json.dadosQR).toBeUndefined();
    expect(after.json.status).toBe('CRIADA');
    const gone = await fetch(`http://${loc.json.location}`);
    expect(gone.status).toBe(404);
    expect((await call('GET', '/locrec/999999')).status).toBe(404);
    expect(running.url).toBeDefined();
  });

  it('lets the payer’s bank read a recurrence’s QR code and approve or reject it, told to the webhookrec (journey 2)', async () => {
    const { call, sandbox, today } = await start();
    const hook = await startCallbackReceiver();
    afterThisTest(() => hook.close());
    await call('PUT', '/webhookrec', { webhookUrl: hook.url });
    const qrRec = async (extra: Record<string, unknown> = {}) => {
      const loc = await call('POST', '/locrec');
      const rec = await call('POST', '/rec', recBody(plus(await today(), 3), { loc: loc.json.id, ...extra }));
      expect(rec.status).toBe(201);
      // What the payer's bank reads: the location inside the composed QR of journey 2.
      const shown = await call('GET', `/rec/${rec.json.idRec}`);
      expect(shown.json.dadosQR.jornada).toBe('JORNADA_2');
      expect(shown.json.dadosQR.pixCopiaECola).toContain(loc.json.location);
      return { idRec: rec.json.idRec as string, locId: loc.json.id as number };
    };

    // Approved with the payer as their bank reports them: by default the simulator's bank and the devedor. A
    // recurrence whose journey-3 txid was set but approved by the QR alone loses it (`dadosJornada`: jornadas 1, 2, 4).
    const txid = `journey2${Date.now()}`.padEnd(30, 'x');
    const approved = await qrRec({ ativacao: { dadosJornada: { txid } } });
    const approval = await sandbox(`/sandbox/locrec/${approved.locId}/aceitar`, {
      pagador: { codMun: '2611606' },
    });
    expect(approval.status).toBe(200);
    expect(approval.json).toMatchObject({ idRec: approved.idRec, status: 'APROVADA' });
    const approvedRead = await call('GET', `/rec/${approved.idRec}`);
    expect(approvedRead.violations).toEqual([]);
    expect(approvedRead.json).toMatchObject({
      status: 'APROVADA',
      ativacao: { tipoJornada: 'JORNADA_2' },
      pagador: { ispbParticipante: '99999999', cpf: '45164632454', codMun: '2611606' },
      atualizacao: [{ status: 'CRIADA' }, { status: 'APROVADA' }],
    });
    expect(approvedRead.json.ativacao.dadosJornada).toBeUndefined();
    await waitFor(() => hook.bodies.length === 1, { what: 'the approval by QR told to the webhookrec' });
    expect(JSON.parse(hook.bodies[0]!)).toMatchObject({
      recs: [{ idRec: approved.idRec, status: 'APROVADA', ativacao: { tipoJornada: 'JORNADA_2' } }],
    });
    // Answered once: reading the QR again, to approve or to reject, changes nothing.
    const again = await sandbox(`/sandbox/locrec/${approved.locId}/rejeitar`);
    expect(again.status).toBe(400);
    expect(again.json.detail).toBe('A recorrência está APROVADA: não há o que autorizar.');
    expect((await sandbox(`/sandbox/locrec/${approved.locId}/aceitar`)).status).toBe(400);

    // Another payer, at another bank, states who they are.
    const named = await qrRec();
    const namedApproval = await sandbox(`/sandbox/locrec/${named.locId}/aceitar`, {
      pagador: { ispbParticipante: '91193552', cnpj: '11222333000181' },
    });
    expect(namedApproval.json.pagador).toEqual({ ispbParticipante: '91193552', cnpj: '11222333000181' });

    // Rejected by the payer's bank (AP14): REJEITADA with the code, and its payload no longer served.
    const rejected = await qrRec();
    const rejection = await sandbox(`/sandbox/locrec/${rejected.locId}/rejeitar`, { codigo: 'AP14' });
    expect(rejection.status).toBe(200);
    const rejectedRead = await call('GET', `/rec/${rejected.idRec}`);
    expect(rejectedRead.violations).toEqual([]);
    expect(rejectedRead.json).toMatchObject({
      status: 'REJEITADA',
      encerramento: { rejeicao: { codigo: 'AP14', descricao: 'Rejeitada pelo PSP pagador.' } },
      ativacao: { tipoJornada: 'AGUARDANDO_DEFINICAO' },
    });
    expect(rejectedRead.json.pagador).toBeUndefined();
    await waitFor(() => hook.bodies.length === 3, { what: 'the other approval and the rejection told' });
    for (const body of hook.bodies) expect(spec.validateRecCallback(body)).toEqual([]);
    const told = hook.bodies.map((body) => JSON.parse(body).recs[0]);
    expect(told.find((rec: { idRec: string }) => rec.idRec === rejected.idRec)).toMatchObject({
      status: 'REJEITADA',
      encerramento: { rejeicao: { codigo: 'AP14' } },
    });

    // A recurrence the receiver cancelled, or moved off the location, has nothing there to answer.
    const cancelled = await qrRec();
    await call('PATCH', `/rec/${cancelled.idRec}`, { status: 'CANCELADA' });
    expect((await sandbox(`/sandbox/locrec/${cancelled.locId}/aceitar`)).json.detail).toBe(
      'A recorrência está CANCELADA: não há o que autorizar.',
    );
    const unlinked = await qrRec();
    await call('DELETE', `/locrec/${unlinked.locId}/idRec`);
    const nothing = await sandbox(`/sandbox/locrec/${unlinked.locId}/aceitar`);
    expect(nothing.status).toBe(404);
    expect(nothing.json.type).toMatch(/RecPayloadNaoEncontrado$/);
    expect((await call('GET', `/rec/${unlinked.idRec}`)).json.status).toBe('CRIADA');
    expect((await sandbox('/sandbox/locrec/999999/aceitar')).status).toBe(404);
    // Bad input is the contract's error shape.
    const bad = await sandbox(`/sandbox/locrec/${unlinked.locId}/rejeitar`, { codigo: 'AP99' });
    expect(bad.status).toBe(400);
  });

  it("checks and expires a recurrence and its request by the recurrence's own clock, not the simulator's", async () => {
    const started = await start();
    const { call, sandbox, today } = started;
    const day = await today();
    const moved = await call('POST', '/rec', recBody(plus(day, 10)));
    const still = await call('POST', '/rec', recBody(plus(day, 10)));
    const idRec = moved.json.idRec as string;
    expect((await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: plus(day, 7) })).json).toEqual({
      hoje: plus(day, 7),
    });
    // A request expiring in 5 days of the simulator's time is already past by the recurrence's clock.
    const past = await call('POST', '/solicrec', solicRecBody(idRec, 5));
    expect(past.status).toBe(400);
    expect(past.json.violacoes[0].propriedade).toBe('solicrec.calendario.dataExpiracaoSolicitacao');
    const solicRec = await call('POST', '/solicrec', solicRecBody(idRec, 9));
    expect(solicRec.status).toBe(201);
    // Dated by the recurrence's clock.
    expect(dateOf(brasiliaDay(new Date(solicRec.json.atualizacao[0].data)))).toBe(plus(day, 7));
    // Its request past its expiry, then itself past its first date unauthorized, by its own clock: both EXPIRADA,
    // while the other recurrence, on the simulator's clock, is still CRIADA.
    await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: plus(day, 11) });
    expect((await call('GET', `/solicrec/${solicRec.json.idSolicRec}`)).json.status).toBe('EXPIRADA');
    expect((await call('GET', `/rec/${idRec}`)).json.status).toBe('EXPIRADA');
    expect((await call('GET', `/rec/${still.json.idRec}`)).json.status).toBe('CRIADA');
    expect(await today()).toBe(day);
  });

  it('approves a recurrence when the payer pays the cob its composed QR carries (journey 3)', async () => {
    const { call, sandbox, today, running } = await start();
    const hook = await startCallbackReceiver();
    const pixHook = await startCallbackReceiver();
    afterThisTest(() => hook.close());
    afterThisTest(() => pixHook.close());
    await call('PUT', '/webhookrec', { webhookUrl: hook.url });
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: pixHook.url });
    const txid = `journey3${Date.now()}`.padEnd(30, 'x');
    const cob = await call('PUT', `/cob/${txid}`, {
      calendario: { expiracao: 3600 },
      valor: { original: '35.00' },
      chave: PIX_KEY,
    });
    expect(cob.status).toBe(201);
    const loc = await call('POST', '/locrec');
    const rec = await call(
      'POST',
      '/rec',
      recBody(plus(await today(), 3), { loc: loc.json.id, ativacao: { dadosJornada: { txid } } }),
    );
    expect(rec.status).toBe(201);
    const composed = await call('GET', `/rec/${rec.json.idRec}?txid=${txid}`);
    expect(composed.violations).toEqual([]);
    expect(composed.json.dadosQR.jornada).toBe('JORNADA_3');
    expect(composed.json.dadosQR.pixCopiaECola).toContain(cob.json.loc.location);
    const otherTxid = `journey3other${Date.now()}`.padEnd(30, 'x');
    await call('PUT', `/cob/${otherTxid}`, {
      calendario: { expiracao: 3600 },
      valor: { original: '1.00' },
      chave: PIX_KEY,
    });
    const wrong = await call('GET', `/rec/${rec.json.idRec}?txid=${otherTxid}`);
    expect(wrong.status).toBe(400);
    expect(wrong.json.type).toMatch(/RecConsultaInvalida$/);
    expect(wrong.violations).toEqual([]);

    expect((await sandbox(`/cob/pagar/${txid}`)).status).toBe(200);
    const approved = await call('GET', `/rec/${rec.json.idRec}`);
    expect(approved.violations).toEqual([]);
    expect(approved.json).toMatchObject({
      status: 'APROVADA',
      ativacao: { tipoJornada: 'JORNADA_3', dadosJornada: { txid } },
      pagador: { cpf: '12345678909', ispbParticipante: '99999999' },
    });
    await waitFor(() => hook.bodies.length === 1, { what: 'the approval by journey 3' });
    expect(spec.validateRecCallback(hook.bodies[0]!)).toEqual([]);
    // One payment, not two: the cob paid once (one Pix, one callback), no cycle of the recurrence debited for it, and
    // paying the same QR again refused (the cob is CONCLUIDA).
    expect((await call('GET', `/cob/${txid}`)).json.status).toBe('CONCLUIDA');
    expect((await sandbox(`/cob/pagar/${txid}`)).status).toBe(400);
    await waitFor(() => running.callbackRunsEnded() === 2, { what: 'the pix and rec callbacks delivered' });
    expect(
      pixHook.bodies.map((body) => JSON.parse(body).pix.map((pix: { txid: string }) => pix.txid)),
    ).toEqual([[txid]]);
    const inicio = new Date(Date.now() - 60_000).toISOString();
    const fim = new Date(Date.now() + 60_000).toISOString();
    const pix = (await call('GET', `/pix?inicio=${inicio}&fim=${fim}`)).json.pix as Array<{ txid: string }>;
    expect(pix.filter((each) => each.txid === txid)).toHaveLength(1);
    const cycles = await call('GET', `/cobr?inicio=${inicio}&fim=${fim}&idRec=${rec.json.idRec}`);
    expect(cycles.json.cobsr).toEqual([]);

    // A cancelled recurrence's payload is no longer served.
    await call('PATCH', `/rec/${rec.json.idRec}`, { status: 'CANCELADA' });
    const refused = await fetch(`http://${loc.json.location}`);
    const body = await refused.text();
    expect(refused.status).toBe(400);
    expect(JSON.parse(body).type).toMatch(/RecPayloadOperacaoInvalida$/);
    expect(
      spec.validateResponse(
        'GET',
        `/rec/${loc.json.location.split('/').pop()}`,
        { status: refused.status, contentType: refused.headers.get('content-type') ?? '', body },
        '/rec/{recUrlAccessToken}',
      ),
    ).toEqual([]);
  });
});
