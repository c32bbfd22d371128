import { Client } from 'pg';
import { closeAfterEachTest, waitFor } from '@gateway/testkit-core';
import { brasiliaDay, dateOf, dayOf } from '../src/business-days';
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

const ACCOUNT = { agencia: '0001', conta: '1234567', tipoConta: 'CORRENTE' };
const afterThisTest = closeAfterEachTest();
let spec: ApiPixSpec;

beforeAll(async () => {
  spec = await ApiPixSpec.load();
});

async function start(options: { books?: string; pixKey?: string; clientId?: string } = {}) {
  const started = await startApiPixSimulator(spec, afterThisTest, options);
  const { call, sandbox, today, advance } = started;
  /** Moves the clock to `date` (in Brasília). */
  const moveTo = async (date: string) => advance(Math.max(0, dayOf(date)! - dayOf(await today())!));
  /** An approved recurrence (journey 1). */
  const approvedRec = async (
    politicaRetentativa = 'PERMITE_3R_7D',
    dataInicial?: string,
    dataFinal?: string,
  ) => {
    const first = dataInicial ?? (await today());
    const rec = await call('POST', '/rec', {
      vinculo: { contrato: 'C-1', devedor: { cpf: '45164632454', nome: 'Fulano de Tal' } },
      calendario: {
        dataInicial: first,
        periodicidade: 'MENSAL',
        ...(dataFinal === undefined ? {} : { dataFinal }),
      },
      valor: { valorRec: '35.00' },
      politicaRetentativa,
    });
    expect(rec.status).toBe(201);
    const solicRec = await call('POST', '/solicrec', {
      idRec: rec.json.idRec,
      calendario: {
        // A day after the simulator's now (which tests move forward).
        dataExpiracaoSolicitacao: new Date(
          Date.parse((await call('GET', '/sandbox/relogio')).json.agora) + 86_400_000,
        ).toISOString(),
      },
      destinatario: { conta: '550689', cpf: '15231470163', ispbParticipante: '91193552' },
    });
    expect((await sandbox(`/sandbox/solicrec/${solicRec.json.idSolicRec}/aceitar`)).status).toBe(200);
    return rec.json.idRec as string;
  };
  return { ...started, moveTo, approvedRec };
}

/** The 10th of the month after `day`'s (i = 0), then of each following month. */
function monthlyDueDates(day: string): (i: number) => string {
  const [year, month] = [Number(day.slice(0, 4)), Number(day.slice(5, 7))];
  return (i: number) => {
    const m = month + i;
    return `${year + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}-10`;
  };
}

function cobrBody(idRec: string, dataDeVencimento: string, extra: Record<string, unknown> = {}) {
  return {
    idRec,
    infoAdicional: 'Mensalidade',
    calendario: { dataDeVencimento },
    valor: { original: '35.00' },
    ajusteDiaUtil: false,
    devedor: { email: 'fulano@example.com', cidade: 'Recife', uf: 'PE' },
    recebedor: ACCOUNT,
    ...extra,
  };
}

describe('Pix Automático: cycles (cobr) and the payer’s bank debiting them (API Pix 2.9.0)', () => {
  it('schedules a cycle, debits it on its day by the clock, and tells it as a Pix and a cobr callback', async () => {
    const { call, advance, today, approvedRec } = await start();
    const pixHook = await startCallbackReceiver();
    const cobrHook = await startCallbackReceiver();
    afterThisTest(() => pixHook.close());
    afterThisTest(() => cobrHook.close());
    expect(spec.scopesOf('PUT', '/cobr/abcdefghijklmnopqrstuvwxyz1')).toEqual(['cobr.write']);
    expect(spec.scopesOf('PUT', '/webhookcobr')).toEqual(['webhookcobr.write']);
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: pixHook.url });
    const hook = await call('PUT', '/webhookcobr', { webhookUrl: cobrHook.url });
    expect(hook.status).toBe(200);
    expect((await call('GET', '/webhookcobr')).violations).toEqual([]);

    const idRec = await approvedRec();
    const due = plus(await today(), 5);
    const txid = newTxid();
    const created = await call('PUT', `/cobr/${txid}`, cobrBody(idRec, due));
    expect(created.requestViolations).toEqual([]);
    expect(created.status).toBe(201);
    expect(created.violations).toEqual([]);
    expect(created.json).toMatchObject({
      idRec,
      txid,
      status: 'ATIVA',
      valor: { original: '35.00' },
      politicaRetentativa: 'PERMITE_3R_7D',
      recebedor: { cnpj: '11222333000181', conta: '1234567' },
      tentativas: [{ dataLiquidacao: due, tipo: 'AGND', status: 'AGENDADA' }],
    });
    const endToEndId = created.json.tentativas[0].endToEndId as string;
    // `ajusteDiaUtil` is required by `CobRBase`: a cobr without it is refused, not defaulted.
    const { ajusteDiaUtil: _omitted, ...withoutAdjustment } = cobrBody(idRec, plus(due, 31));
    const unadjusted = await call('PUT', `/cobr/${newTxid()}`, withoutAdjustment);
    expect(unadjusted.status).toBe(400);
    expect(JSON.stringify(unadjusted.json)).toContain('ajusteDiaUtil');
    // A txid names one cycle for good: the same PUT again is refused as API Pix lists (201 or a violation, no 200),
    // as a cob's is; the client reads the cycle back.
    const replay = await call('PUT', `/cobr/${txid}`, cobrBody(idRec, due));
    expect(replay.status).toBe(400);
    expect(replay.violations).toEqual([]);
    expect(replay.json.violacoes).toEqual([
      { razao: 'O campo cobr.txid encontra-se em uso.', propriedade: 'cobr.txid' },
    ]);
    expect((await call('GET', `/cobr/${txid}`)).json.tentativas[0].endToEndId).toBe(endToEndId);

    await advance(4);
    expect((await call('GET', `/cobr/${txid}`)).json.status).toBe('ATIVA');
    await advance(1);
    const paid = await call('GET', `/cobr/${txid}`);
    expect(paid.violations).toEqual([]);
    expect(paid.json).toMatchObject({
      status: 'CONCLUIDA',
      tentativas: [{ status: 'PAGA', endToEndId }],
      pix: [{ endToEndId, txid, valor: '35.00' }],
    });
    const pix = await call('GET', `/pix/${endToEndId}`);
    expect(pix.status).toBe(200);
    expect(pix.violations).toEqual([]);
    const inicio = new Date(Date.now() - 60_000).toISOString();
    const fim = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const listed = await call('GET', `/pix?inicio=${inicio}&fim=${fim}`);
    expect(listed.violations).toEqual([]);
    expect(listed.json.pix.map((each: { txid: string }) => each.txid)).toEqual([txid]);

    await waitFor(() => pixHook.bodies.length === 1, { what: 'the pix callback' });
    expect(spec.validateCallback(pixHook.bodies[0]!)).toEqual([]);
    await waitFor(() => cobrHook.bodies.length === 2, { what: 'the cobr callbacks (ATIVA, CONCLUIDA)' });
    for (const body of cobrHook.bodies) expect(spec.validateCobrCallback(body)).toEqual([]);
    expect(cobrHook.bodies.map((body) => JSON.parse(body).cobsr[0].status)).toEqual(['ATIVA', 'CONCLUIDA']);

    const cycles = await call('GET', `/cobr?inicio=${inicio}&fim=${fim}&idRec=${idRec}`);
    expect(cycles.status).toBe(200);
    expect(cycles.violations).toEqual([]);
    expect(cycles.json.cobsr).toHaveLength(1);
  });

  it('fails an attempt when asked, retries as PERMITE_3R_7D allows, and expires what NAO_PERMITE cannot retry', async () => {
    const { call, sandbox, advance, today, approvedRec } = await start();
    const idRec = await approvedRec('PERMITE_3R_7D');
    const day = await today();
    const txid = newTxid();
    await call('PUT', `/cobr/${txid}`, cobrBody(idRec, plus(day, 2)));
    expect((await sandbox(`/sandbox/cobr/${txid}/falhar`)).status).toBe(200);
    const early = await call('POST', `/cobr/${txid}/retentativa/${plus(day, 4)}`);
    expect(early.status).toBe(400);
    expect(early.json.violacoes[0].razao).toBe('Existe uma tentativa com status SOLICITADA ou AGENDADA.');
    await advance(2);
    const failed = await call('GET', `/cobr/${txid}`);
    expect(failed.violations).toEqual([]);
    expect(failed.json).toMatchObject({
      status: 'ATIVA',
      tentativas: [{ status: 'REJEITADA', rejeicao: { codigo: 'AM02' } }],
    });
    expect(failed.json.pix).toBeUndefined();

    const past = await call('POST', `/cobr/${txid}/retentativa/${plus(day, 2)}`);
    expect(past.json.violacoes[0].razao).toBe('O parâmetro data não corresponde a uma data futura.');
    const tooLate = await call('POST', `/cobr/${txid}/retentativa/${plus(day, 10)}`);
    expect(tooLate.status).toBe(400);
    const badDate = await call('POST', `/cobr/${txid}/retentativa/04-12-2026`);
    expect(badDate.status).toBe(400);
    // The operation declares no body: one sent is refused.
    const withBody = await call('POST', `/cobr/${txid}/retentativa/${plus(day, 4)}`, {});
    expect(withBody.status).toBe(400);
    expect(withBody.json.violacoes[0]).toMatchObject({ propriedade: 'body' });
    const retry = await call('POST', `/cobr/${txid}/retentativa/${plus(day, 4)}`);
    expect(retry.requestViolations).toEqual([]);
    expect(retry.status).toBe(201);
    expect(retry.violations).toEqual([]);
    expect(retry.json.tentativas).toMatchObject([
      { status: 'REJEITADA' },
      { tipo: 'NTAG', status: 'AGENDADA' },
    ]);
    await advance(2);
    const paid = await call('GET', `/cobr/${txid}`);
    expect(paid.json).toMatchObject({
      status: 'CONCLUIDA',
      tentativas: [{ status: 'REJEITADA' }, { status: 'PAGA' }],
    });
    expect(paid.json.pix).toHaveLength(1);
    for (const reply of [early, past, tooLate, badDate]) {
      expect(reply.json.type).toMatch(/CobROperacaoInvalida$/);
      expect(reply.violations).toEqual([]);
    }

    const strict = await approvedRec('NAO_PERMITE');
    const once = newTxid();
    await call('PUT', `/cobr/${once}`, cobrBody(strict, plus(await today(), 2)));
    await sandbox(`/sandbox/cobr/${once}/falhar`, { codigo: 'AM02' });
    const noRetry = await call('POST', `/cobr/${once}/retentativa/${plus(await today(), 3)}`);
    expect(noRetry.json.violacoes[0].razao).toBe(
      'A política configurada na recorrência não permite retentativa de cobrança.',
    );
    await advance(2);
    expect((await call('GET', `/cobr/${once}`)).json).toMatchObject({
      status: 'EXPIRADA',
      tentativas: [{ status: 'REJEITADA' }],
    });

    // A code the document says rejects the cycle itself (AC05: the payer's account closed) ends it REJEITADA.
    const closed = newTxid();
    const another = await approvedRec('PERMITE_3R_7D');
    expect((await call('PUT', `/cobr/${closed}`, cobrBody(another, plus(await today(), 2)))).status).toBe(
      201,
    );
    await sandbox(`/sandbox/cobr/${closed}/falhar`, { codigo: 'AC05' });
    await advance(2);
    const rejected = await call('GET', `/cobr/${closed}`);
    expect(rejected.violations).toEqual([]);
    expect(rejected.json).toMatchObject({
      status: 'REJEITADA',
      tentativas: [{ rejeicao: { codigo: 'AC05' } }],
    });
  });

  it('answers the document’s violations of PUT /cobr and PATCH /cobr, and keeps one cycle per period', async () => {
    const started = await start();
    const { call, advance, today, approvedRec } = started;
    const day = await today();
    const idRec = await approvedRec();
    const pending = await call('POST', '/rec', {
      vinculo: { contrato: 'C-2', devedor: { cpf: '45164632454', nome: 'Fulano' } },
      calendario: { dataInicial: day, periodicidade: 'MENSAL' },
      politicaRetentativa: 'NAO_PERMITE',
    });
    const later = await approvedRec('PERMITE_3R_7D', plus(day, 20), plus(day, 60));
    const cases: Array<[string, unknown, string]> = [
      ['a due date before creation', cobrBody(idRec, plus(day, -1)), 'cobr.calendario.dataDeVencimento'],
      // BCB: the receiver sends a cycle at least 2 days before its due date.
      ['a due date tomorrow', cobrBody(idRec, plus(day, 1)), 'cobr.calendario.dataDeVencimento'],
      ['a due date before the first date', cobrBody(later, plus(day, 5)), 'cobr.calendario.dataDeVencimento'],
      ['a due date after the last date', cobrBody(later, plus(day, 61)), 'cobr.calendario.dataDeVencimento'],
      [
        'another amount than the fixed one',
        cobrBody(idRec, plus(day, 3), { valor: { original: '36.00' } }),
        'cobr.valor.original',
      ],
      [
        'another account',
        cobrBody(idRec, day, { recebedor: { conta: '999', tipoConta: 'CORRENTE' } }),
        'cobr.recebedor',
      ],
      ['a recurrence not approved', cobrBody(pending.json.idRec, day), 'cobr.idRec'],
      ['a recurrence that does not exist', cobrBody('RR1122233320260101abcdefghijk', day), 'cobr.idRec'],
      [
        'an amount out of schema',
        cobrBody(idRec, day, { valor: { original: '0.001' } }),
        'cobr.valor.original',
      ],
      ['a date in another format', cobrBody(idRec, '2026/12/01'), 'cobr.calendario.dataDeVencimento'],
      ['a NUL', cobrBody(idRec, day, { infoAdicional: 'a\u0000b' }), 'cobr.infoAdicional'],
      ['a huge text', cobrBody(idRec, day, { infoAdicional: 'x'.repeat(5000) }), 'cobr.infoAdicional'],
    ];
    for (const [what, body, propriedade] of cases) {
      const reply = await call('PUT', `/cobr/${newTxid()}`, body);
      expect({ what, status: reply.status }).toEqual({ what, status: 400 });
      expect(reply.json.type).toMatch(/CobROperacaoInvalida$/);
      expect(reply.json.violacoes.map((v: { propriedade: string }) => v.propriedade)).toContain(propriedade);
      expect(reply.violations).toEqual([]);
    }
    expect((await call('PUT', `/cobr/${newTxid()}`, undefined, undefined, '{"idRec":')).status).toBe(400);

    // POST: the PSP chooses the txid. A second cycle in the same month is refused; after cancelling the first, taken.
    const first = await call('POST', '/cobr', cobrBody(idRec, plus(day, 3)));
    expect(first.requestViolations).toEqual([]);
    expect(first.status).toBe(201);
    expect(first.violations).toEqual([]);
    expect(first.json.txid).toMatch(/^[a-zA-Z0-9]{32}$/);
    const sameCycle = await call('PUT', `/cobr/${newTxid()}`, cobrBody(idRec, plus(day, 4)));
    expect(sameCycle.status).toBe(400);
    expect(sameCycle.json.violacoes[0].razao).toMatch(
      /^Existe uma CobR com status diferente de REJEITADA e CANCELADA/,
    );
    const txidTaken = await call('PUT', `/cobr/${first.json.txid}`, cobrBody(idRec, plus(day, 5)));
    expect(txidTaken.json.violacoes[0].razao).toBe('O campo cobr.txid encontra-se em uso.');

    const cancel = await call('PATCH', `/cobr/${first.json.txid}`, { status: 'CANCELADA' });
    expect(cancel.requestViolations).toEqual([]);
    expect(cancel.status).toBe(200);
    expect(cancel.violations).toEqual([]);
    expect(cancel.json).toMatchObject({
      status: 'CANCELADA',
      encerramento: { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR' } },
      tentativas: [{ status: 'CANCELADA' }],
    });
    expect((await call('PATCH', `/cobr/${first.json.txid}`, { status: 'CANCELADA' })).status).toBe(400);
    const again = await call('PUT', `/cobr/${newTxid()}`, cobrBody(idRec, plus(day, 4)));
    expect(again.status).toBe(201);
    // On the day of its first attempt it is too late to cancel (and the debit runs first anyway).
    await advance(4);
    const late = await call('PATCH', `/cobr/${again.json.txid}`, { status: 'CANCELADA' });
    expect(late.status).toBe(400);
    expect((await call('GET', `/cobr/${again.json.txid}`)).json.status).toBe('CONCLUIDA');
    const missing = await call('GET', `/cobr/${newTxid()}`);
    expect(missing.status).toBe(404);
    expect(missing.json.type).toMatch(/CobRNaoEncontrado$/);
    expect(missing.violations).toEqual([]);
  });

  it('keeps another account’s cycles out of reach', async () => {
    const books = await booksForThisTest(afterThisTest);
    const mine = await start({ books });
    const theirs = await start({ books, pixKey: OTHER_KEY, clientId: 'other' });
    const idRec = await mine.approvedRec();
    const txid = newTxid();
    await mine.call('PUT', `/cobr/${txid}`, cobrBody(idRec, plus(await mine.today(), 3)));
    expect((await theirs.call('GET', `/cobr/${txid}`)).status).toBe(404);
    expect((await theirs.call('PATCH', `/cobr/${txid}`, { status: 'CANCELADA' })).status).toBe(404);
    expect(
      (await theirs.call('PUT', `/cobr/${newTxid()}`, cobrBody(idRec, plus(await theirs.today(), 3)))).status,
    ).toBe(400);
  });

  it("debits a recurrence's last cycle on its last day even when the clock jumps past its sending and its day at once", async () => {
    const { call, advance, today, approvedRec } = await start();
    const first = await today();
    const last = plus(first, 40);
    const idRec = await approvedRec('PERMITE_3R_7D', first, last);
    const txid = newTxid();
    expect((await call('PUT', `/cobr/${txid}`, cobrBody(idRec, last))).status).toBe(201);
    // One move from before the cycle's window to three weeks after its day (and the recurrence's last day).
    await advance(61);
    const cobr = (await call('GET', `/cobr/${txid}`)).json;
    expect(cobr.status).toBe('CONCLUIDA');
    expect(cobr.tentativas.map((t: { status: string }) => t.status)).toEqual(['PAGA']);
    const inicio = new Date(Date.now() - 60_000).toISOString();
    const fim = new Date(Date.now() + 400 * 86_400_000).toISOString();
    const pix = (await call('GET', `/pix?inicio=${inicio}&fim=${fim}`)).json.pix as Array<{ txid: string }>;
    expect(pix.filter((each) => each.txid === txid)).toHaveLength(1);
    // The recurrence ended once its last cycle had.
    expect((await call('GET', `/rec/${idRec}`)).json.status).toBe('EXPIRADA');
  });

  it("counts a cycle's Pix in the account's balance, and decides its devolução against it", async () => {
    const { call, advance, today, approvedRec } = await start();
    const saldo = async () => (await call('GET', '/gn/saldo')).json.saldo as string;
    const before = await saldo();
    const idRec = await approvedRec();
    const txid = newTxid();
    expect((await call('PUT', `/cobr/${txid}`, cobrBody(idRec, plus(await today(), 2)))).status).toBe(201);
    await advance(3);
    const cobr = (await call('GET', `/cobr/${txid}`)).json;
    expect(cobr.status).toBe('CONCLUIDA');
    const endToEndId = cobr.tentativas[0].endToEndId as string;
    const cents = (amount: string) => Math.round(Number(amount) * 100);
    expect(cents(await saldo()) - cents(before)).toBe(3_500);
    // R$ 10,00 back to the payer leaves the balance when it settles.
    const devolucao = await call('PUT', `/pix/${endToEndId}/devolucao/dev1`, { valor: '10.00' });
    expect(devolucao.status).toBe(201);
    await waitFor(
      async () =>
        (await call('GET', `/pix/${endToEndId}/devolucao/dev1`)).json.status === 'DEVOLVIDO' || undefined,
      { what: "the cycle's devolução settled" },
    );
    expect(cents(await saldo()) - cents(before)).toBe(2_500);
  });

  it("refuses a cobv under a cycle's txid (taken), rather than taking it for a racing PUT", async () => {
    const { call, today, approvedRec } = await start();
    const idRec = await approvedRec();
    const txid = newTxid();
    expect((await call('PUT', `/cobr/${txid}`, cobrBody(idRec, plus(await today(), 3)))).status).toBe(201);
    const cobv = await call('PUT', `/cobv/${txid}`, {
      calendario: { dataDeVencimento: plus(await today(), 5) },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor: { original: '10.00' },
      chave: PIX_KEY,
    });
    expect(cobv.status).toBe(400);
    expect(cobv.violations).toEqual([]);
  });

  it('debits a cycle once when debits race, and ends in one state when a cancellation races the debit', async () => {
    const { call, sandbox, advance, today, approvedRec } = await start();
    const idRec = await approvedRec();
    const txid = newTxid();
    await call('PUT', `/cobr/${txid}`, cobrBody(idRec, plus(await today(), 2)));
    // The cycle falls due during the race: moves of the clock onto its day, and reads, each running the due debits.
    const racing = await Promise.all([
      advance(1),
      advance(1),
      call('GET', `/cobr/${txid}`),
      call('GET', '/cobr/' + txid),
      advance(1),
    ]);
    for (const reply of racing) expect(reply.status).toBeLessThan(500);
    const inicio = new Date(Date.now() - 60_000).toISOString();
    const fim = new Date(Date.now() + 400 * 86_400_000).toISOString();
    const pix = (await call('GET', `/pix?inicio=${inicio}&fim=${fim}`)).json.pix as Array<{ txid: string }>;
    expect(pix.filter((each) => each.txid === txid)).toHaveLength(1);

    for (let round = 0; round < 3; round++) {
      const racing = await approvedRec();
      const cycle = newTxid();
      await call('PUT', `/cobr/${cycle}`, cobrBody(racing, plus(await today(), 2)));
      const [, cancelled] = await Promise.all([advance(2), sandbox(`/sandbox/rec/${racing}/cancelar`)]);
      const cobr = (await call('GET', `/cobr/${cycle}`)).json;
      const rec = (await call('GET', `/rec/${racing}`)).json;
      expect(cancelled.status).toBe(200);
      expect(rec.status).toBe('CANCELADA');
      if (cobr.status === 'CONCLUIDA') expect(cobr.pix).toHaveLength(1);
      else {
        expect(cobr.status).toBe('CANCELADA');
        expect(cobr.pix).toBeUndefined();
        expect(cobr.encerramento.cancelamento.codigo).toBe('CCLD');
      }
    }
  });

  it('runs a year of monthly cycles by moving the clock, one Pix per cycle, across a restart', async () => {
    const books = await booksForThisTest(afterThisTest);
    let sim = await start({ books });
    const dueOf = monthlyDueDates(await sim.today());
    const idRec = await sim.approvedRec('NAO_PERMITE', dueOf(0));
    const cycles: string[] = [];
    for (let i = 0; i < 12; i++) {
      if (i === 6) {
        await sim.running.close();
        sim = await start({ books });
      }
      await sim.moveTo(plus(dueOf(i), -3));
      const txid = newTxid();
      const created = await sim.call('PUT', `/cobr/${txid}`, cobrBody(idRec, dueOf(i)));
      expect(created.status).toBe(201);
      cycles.push(txid);
      await sim.moveTo(dueOf(i));
    }
    const inicio = new Date(Date.now() - 60_000).toISOString();
    const fim = new Date(Date.now() + 500 * 86_400_000).toISOString();
    const pix = (await sim.call('GET', `/pix?inicio=${inicio}&fim=${fim}`)).json.pix as Array<{
      txid: string;
    }>;
    expect(pix.map((each) => each.txid).sort()).toEqual([...cycles].sort());
    for (const txid of cycles) expect((await sim.call('GET', `/cobr/${txid}`)).json.status).toBe('CONCLUIDA');
  });

  it('holds the bank’s rules in the books, whatever the code does', async () => {
    const books = await booksForThisTest(afterThisTest);
    const { call, sandbox, today, approvedRec } = await start({ books });
    const idRec = await approvedRec();
    const txid = newTxid();
    await call('PUT', `/cobr/${txid}`, cobrBody(idRec, plus(await today(), 3)));
    const cancelled = await approvedRec();
    await sandbox(`/sandbox/rec/${cancelled}/cancelar`);
    const sql = new Client({ connectionString: books });
    await sql.connect();
    afterThisTest(() => sql.end());
    const refused = (query: string, params: unknown[] = []) =>
      sql.query(query, params).then(
        () => 'accepted',
        (error: { code?: string }) => error.code,
      );
    const s = 'psp_simulator';
    // A final recurrence never changes; a recurrence never skips a step.
    expect(await refused(`UPDATE ${s}.recs SET status = 'APROVADA' WHERE id_rec = $1`, [cancelled])).toBe(
      '23514',
    );
    expect(await refused(`UPDATE ${s}.recs SET contrato = 'x' WHERE id_rec = $1`, [cancelled])).toBe('23514');
    expect(await refused(`UPDATE ${s}.recs SET status = 'CRIADA' WHERE id_rec = $1`, [idRec])).toBe('23514');
    // One cycle per recurrence and period; a cycle never goes back.
    expect(
      await refused(
        `INSERT INTO ${s}.cobrs (txid, id_rec, pix_key, status, criacao, data_de_vencimento, ciclo, valor_centavos,
           ajuste_dia_util, recebedor, tentativas, atualizacao)
         SELECT $2, id_rec, pix_key, 'CRIADA', now(), data_de_vencimento, ciclo, 100, true, recebedor, '[]', '[]'
         FROM ${s}.cobrs WHERE txid = $1`,
        [txid, newTxid()],
      ),
    ).toBe('23505');
    expect(await refused(`UPDATE ${s}.cobrs SET status = 'CRIADA' WHERE txid = $1`, [txid])).toBe('23514');
    // A Pix pays a charge that exists, once.
    expect(
      await refused(
        `INSERT INTO ${s}.pix (end_to_end_id, txid, valor_centavos, horario, document)
         VALUES ('E99999999202601011200abcdefghijk', $1, 100, now(), '{}')`,
        [newTxid()],
      ),
    ).toBe('23503');
  });
});

describe('Pix Automático: a clock per recurrence (sandbox test clocks)', () => {
  /** The bodies received, parsed, in the order they arrived. */
  const parsed = (hook: { bodies: string[] }) => hook.bodies.map((body) => JSON.parse(body));

  it("runs a year of monthly cycles on one recurrence's clock, leaving the simulator's clock, other charges and other recurrences where they were", async () => {
    const { call, sandbox, today, approvedRec } = await start();
    const pixHook = await startCallbackReceiver();
    const cobrHook = await startCallbackReceiver();
    afterThisTest(() => pixHook.close());
    afterThisTest(() => cobrHook.close());
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: pixHook.url });
    await call('PUT', '/webhookcobr', { webhookUrl: cobrHook.url });
    const day = await today();
    const dueOf = monthlyDueDates(day);
    const idRec = await approvedRec('NAO_PERMITE', dueOf(0));
    const other = await approvedRec('NAO_PERMITE', dueOf(0));
    const cobTxid = newTxid();
    const cob = await call('PUT', `/cob/${cobTxid}`, {
      calendario: { expiracao: 86_400 },
      valor: { original: '1.00' },
      chave: PIX_KEY,
    });
    expect(cob.status).toBe(201);

    const cycles: string[] = [];
    for (let i = 0; i < 12; i++) {
      // Into the cycle's scheduling window (this also debits the cycle before, due on the way).
      const moved = await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: plus(dueOf(i), -3) });
      expect(moved.status).toBe(200);
      expect(moved.json).toEqual({ hoje: plus(dueOf(i), -3) });
      const txid = newTxid();
      const created = await call('PUT', `/cobr/${txid}`, cobrBody(idRec, dueOf(i)));
      expect(created.violations).toEqual([]);
      expect(created.json).toMatchObject({ status: 'ATIVA', calendario: { criacao: plus(dueOf(i), -3) } });
      cycles.push(txid);
    }
    const last = await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: plus(dueOf(11), 1) });
    expect(last.json).toEqual({ hoje: plus(dueOf(11), 1) });

    // Twelve debits, told in order, each dated on its due day by the recurrence's clock.
    await waitFor(() => pixHook.bodies.length === 12, { what: 'the 12 pix callbacks' });
    const pix = parsed(pixHook).map((body) => body.pix[0] as { txid: string; horario: string });
    expect(pix.map((each) => each.txid)).toEqual(cycles);
    expect(pix.map((each) => dateOf(brasiliaDay(new Date(each.horario))))).toEqual(
      cycles.map((_, i) => dueOf(i)),
    );
    // The account's statement lists them now, when the money arrived by the simulator's clock (a reconciliation of
    // today reads it), not a year ahead where the recurrence's clock stands.
    const inicio = new Date(Date.now() - 10 * 60_000).toISOString();
    const fim = new Date(Date.now() + 60_000).toISOString();
    const listed = (await call('GET', `/pix?inicio=${inicio}&fim=${fim}`)).json.pix as Array<{
      txid: string;
    }>;
    expect(listed.map((each) => each.txid)).toEqual(cycles);
    const concluded = () =>
      parsed(cobrHook)
        .map((body) => body.cobsr[0])
        .filter((cobr) => cobr.status === 'CONCLUIDA');
    await waitFor(() => concluded().length === 12, { what: 'the 12 cobr callbacks CONCLUIDA' });
    expect(concluded().map((cobr) => cobr.txid)).toEqual(cycles);
    for (const body of cobrHook.bodies) expect(spec.validateCobrCallback(body)).toEqual([]);

    // The simulator's clock, the cob created meanwhile and the other recurrence did not move.
    expect(await today()).toBe(day);
    expect((await call('GET', `/cob/${cobTxid}`)).json.status).toBe('ATIVA');
    expect((await sandbox(`/sandbox/rec/${other}/relogio`, undefined, 'GET')).json).toEqual({ hoje: day });
    expect((await sandbox(`/sandbox/rec/${idRec}/relogio`, undefined, 'GET')).json).toEqual({
      hoje: plus(dueOf(11), 1),
    });
    // Each recurrence's cycles are checked by its own clock: a year ahead for one, today for the other.
    const stale = await call('PUT', `/cobr/${newTxid()}`, cobrBody(idRec, plus(day, 30)));
    expect(stale.json.violacoes).toEqual([
      {
        razao: 'O campo cobr.calendario.dataDeVencimento é anterior à data de criação da cobrança.',
        propriedade: 'cobr.calendario.dataDeVencimento',
      },
    ]);
    const early = await call('PUT', `/cobr/${newTxid()}`, cobrBody(other, dueOf(0)));
    expect(early.json.status).toBe(dayOf(dueOf(0))! - dayOf(day)! <= 10 ? 'ATIVA' : 'CRIADA');
  });

  it('moves months in one call, each cycle sent and debited in order; never back', async () => {
    const { call, sandbox, today, approvedRec } = await start();
    const pixHook = await startCallbackReceiver();
    afterThisTest(() => pixHook.close());
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: pixHook.url });
    const day = await today();
    const dueOf = monthlyDueDates(day);
    const idRec = await approvedRec('NAO_PERMITE', dueOf(0));
    // Cycles created ahead wait (CRIADA) until their scheduling window, 10 days before their due date.
    const cycles: string[] = [];
    for (let i = 0; i < 3; i++) {
      const txid = newTxid();
      expect((await call('PUT', `/cobr/${txid}`, cobrBody(idRec, dueOf(i)))).status).toBe(201);
      cycles.push(txid);
    }
    expect((await call('GET', `/cobr/${cycles[2]}`)).json.status).toBe('CRIADA');

    const moved = await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: plus(dueOf(2), 1) });
    expect(moved.json).toEqual({ hoje: plus(dueOf(2), 1) });
    // Answered once all was done: every cycle already concluded, its Pix told in order.
    for (const [i, txid] of cycles.entries()) {
      const cobr = (await call('GET', `/cobr/${txid}`)).json;
      expect(cobr).toMatchObject({ status: 'CONCLUIDA', tentativas: [{ dataLiquidacao: dueOf(i) }] });
      // Sent 10 days before its due date, by the recurrence's clock.
      expect(cobr.atualizacao.map((each: { status: string }) => each.status)).toEqual([
        'CRIADA',
        'ATIVA',
        'CONCLUIDA',
      ]);
    }
    const sent = (await call('GET', `/cobr/${cycles[2]}`)).json.atualizacao[1].data as string;
    expect(dateOf(brasiliaDay(new Date(sent)))).toBe(plus(dueOf(2), -10));
    await waitFor(() => pixHook.bodies.length === 3, { what: 'the 3 pix callbacks' });
    expect(parsed(pixHook).map((body) => body.pix[0].txid)).toEqual(cycles);

    // Never back: a day before its today is refused, naming `ate`; its today again moves nothing.
    const back = await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: dueOf(2) });
    expect(back.status).toBe(400);
    expect(back.json).toMatchObject({
      type: expect.stringMatching(/RequisicaoInvalida$/),
      violacoes: [{ propriedade: 'relogio.ate' }],
    });
    const same = await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: plus(dueOf(2), 1) });
    expect(same.json).toEqual({ hoje: plus(dueOf(2), 1) });
    const malformed = await sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate: 'amanhã' });
    expect(malformed.status).toBe(400);
    const unknown = await sandbox('/sandbox/rec/RR1122233320260101abcdefghijk/relogio/avancar', { ate: day });
    expect(unknown.status).toBe(404);
    expect(await today()).toBe(day);
  });

  it("fails the recurrence's next cycle, whether or not its cobr exists yet", async () => {
    const { call, sandbox, approvedRec, today } = await start();
    const day = await today();
    const dueOf = monthlyDueDates(day);
    const idRec = await approvedRec('NAO_PERMITE', dueOf(0));
    const moveTo = (ate: string) => sandbox(`/sandbox/rec/${idRec}/relogio/avancar`, { ate });

    // Before the cycle's cobr exists: kept on the recurrence, taken by the next one created.
    const marked = await sandbox(`/sandbox/rec/${idRec}/falhar-proxima`, { codigo: 'AM02' });
    expect(marked.status).toBe(200);
    expect(marked.json).toMatchObject({ idRec, status: 'APROVADA' });
    await moveTo(plus(dueOf(0), -5));
    const first = newTxid();
    expect((await call('PUT', `/cobr/${first}`, cobrBody(idRec, dueOf(0)))).status).toBe(201);
    await moveTo(plus(dueOf(0), 1));
    expect((await call('GET', `/cobr/${first}`)).json).toMatchObject({
      status: 'EXPIRADA',
      tentativas: [{ status: 'REJEITADA', rejeicao: { codigo: 'AM02' } }],
    });

    // Once the cobr exists (and is not yet debited): that one. The failure is spent: the cycle after pays.
    await moveTo(plus(dueOf(1), -5));
    const second = newTxid();
    expect((await call('PUT', `/cobr/${second}`, cobrBody(idRec, dueOf(1)))).status).toBe(201);
    expect((await sandbox(`/sandbox/rec/${idRec}/falhar-proxima`)).status).toBe(200);
    await moveTo(plus(dueOf(2), -5));
    const third = newTxid();
    expect((await call('PUT', `/cobr/${third}`, cobrBody(idRec, dueOf(2)))).status).toBe(201);
    await moveTo(plus(dueOf(2), 1));
    expect((await call('GET', `/cobr/${second}`)).json).toMatchObject({
      status: 'EXPIRADA',
      tentativas: [{ status: 'REJEITADA', rejeicao: { codigo: 'AM02' } }],
    });
    expect((await call('GET', `/cobr/${third}`)).json.status).toBe('CONCLUIDA');

    expect((await sandbox(`/sandbox/rec/${idRec}/falhar-proxima`, { codigo: 'XXXX' })).status).toBe(400);
    await sandbox(`/sandbox/rec/${idRec}/cancelar`);
    expect((await sandbox(`/sandbox/rec/${idRec}/falhar-proxima`)).status).toBe(400);
  });
});
