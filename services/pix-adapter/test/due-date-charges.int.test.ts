import { SANDBOX_PIX_KEY } from '@gateway/config';
import {
  changePixChargeAmount,
  getPixChargeStatus,
  newPublicId,
  openPixCharge,
  paymentCancelled,
  simulatePixOutcome,
  type AmountParts,
  type OpenPixCharge,
  type PixDue,
} from '@gateway/contracts';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import {
  aPaymentEvent,
  advancePspClock,
  cobvAtPsp,
  daysAfter,
  payDueChargeAtPsp,
  pspToday,
  waitFor,
  withoutPspCallbacks,
} from '@gateway/testkit';
import {
  type AdapterBed,
  anOpenPixCharge,
  chargeBecomes,
  openCharge,
  simulateOutcome,
  startAdapterAgainstSandboxPsp,
} from './support/adapter';

// Charges with a due date (API Pix cobv) against the PSP simulator, which computes what is due on its own date; the
// tests move that date forward to pay late, so each test states its due date from the simulator's today.

const DEBTOR = { name: 'Francisco da Silva', document: '12345678909' };

interface PaidEvent {
  end_to_end_id: string;
  amount_centavos: number;
  amount_parts?: AmountParts | null;
}

describe('PIX adapter: charges with a due date against the PSP simulator', () => {
  let bed: AdapterBed;
  let psp: RunningPspSimulator;

  beforeAll(async () => {
    ({ bed, psp } = await startAdapterAgainstSandboxPsp('pix-adapter-cobv', () => ({
      EXPIRY_SWEEP_INTERVAL_MS: '200',
    })));
  });

  afterAll(() => bed.close());

  const aDueCharge = (due: PixDue, overrides: Partial<OpenPixCharge> = {}): OpenPixCharge =>
    anOpenPixCharge({ amount_centavos: 45_000, debtor: DEBTOR, due, ...overrides });

  const paidEvents = async (txid: string): Promise<PaidEvent[]> => {
    const rows: Array<{ payload: PaidEvent }> = await bed.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox
        WHERE name = 'pix.charge.paid.v1' AND envelope->'payload'->>'txid' = $1 ORDER BY seq`,
      [txid],
    );
    return rows.map((row) => row.payload);
  };

  const outcomeOf = async (endToEndId: string): Promise<string | undefined> => {
    const rows: Array<{ outcome: string }> = await bed.service.dataSource.query(
      `SELECT outcome FROM callbacks_received WHERE end_to_end_id = $1 AND outcome <> 'duplicate'`,
      [endToEndId],
    );
    return rows[0]?.outcome;
  };

  test('opens a cobv with its debtor and rules, shows its due date and last payable day, and is paid the original on the due date', async () => {
    const today = await pspToday(psp.url);
    const due: PixDue = {
      date: today,
      payable_days_after: 10,
      fine: { percent_bps: 200 },
      interest: { percent_bps: 100, per: 'month' },
      reduction: { amount: 0 + 1000 },
    };
    const command = aDueCharge(due, { description: 'Mensalidade' });
    const opened = await openCharge(bed, command);
    expect(opened.due_date).toBe(today);
    expect(opened.payable_until! >= daysAfter(today, 10)).toBe(true);
    expect(opened.copia_e_cola).toContain('/cobv/');
    const cobv = await cobvAtPsp(psp.url, opened.txid);
    expect(cobv).toMatchObject({
      status: 'ATIVA',
      calendario: { dataDeVencimento: today, validadeAposVencimento: 10 },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor: {
        original: '450.00',
        multa: { modalidade: 2, valorPerc: '2.00' },
        juros: { modalidade: 3, valorPerc: '1.00' },
        abatimento: { modalidade: 1, valorPerc: '10.00' },
      },
      solicitacaoPagador: 'Mensalidade',
    });

    const accepted = await simulateOutcome(bed, command.payment_id, 'paid');
    expect(accepted.ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'paid');
    const [paid] = await waitFor(async () => {
      const events = await paidEvents(opened.txid);
      return events.length === 1 && events;
    });
    // Paid on the due date: the original less the reduction, no fine, no interest.
    expect(paid).toMatchObject({
      amount_centavos: 44_000,
      amount_parts: { original: 45_000, fine: 0, interest: 0, reduction: 1000, discount: 0 },
    });
  });

  test('paid after the due date, the Pix carries fine and interest, and pays the charge with its parts', async () => {
    const today = await pspToday(psp.url);
    const command = aDueCharge({
      date: today,
      payable_days_after: 30,
      fine: { percent_bps: 200 },
      interest: { amount: 15 },
    });
    const opened = await openCharge(bed, command);
    // Ten days on, whatever day of the week the due date was moved to: paid as of that day, no clock moved.
    const payDay = daysAfter(today, 10);
    const dueDay = (await cobvAtPsp(psp.url, opened.txid)).calendario!.dataDeVencimento;
    expect(dueDay).toBe(today);

    const paying = { payment_id: command.payment_id, outcome: 'paid' as const, amount_centavos: null };
    expect((await bed.request(simulatePixOutcome, { ...paying, paid_on: payDay })).ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'paid');
    const [paid] = await waitFor(async () => {
      const events = await paidEvents(opened.txid);
      return events.length === 1 && events;
    });
    const parts = paid!.amount_parts!;
    expect(parts.original).toBe(45_000);
    expect(parts.fine).toBe(900);
    // R$ 0,15 a calendar day since the due date as the PSP moved it (to a business day), at most ten days.
    expect(parts.interest).toBeGreaterThan(0);
    expect(parts.interest).toBeLessThanOrEqual(150);
    expect(parts.interest % 15).toBe(0);
    expect(paid!.amount_centavos).toBe(45_000 + 900 + parts.interest);
    // The simulator's clock did not move: every other charge keeps its day.
    expect(await pspToday(psp.url)).toBe(today);
  });

  test("paid_on is refused outside the charge's window, and for a charge without a due date", async () => {
    const today = await pspToday(psp.url);
    const command = aDueCharge({ date: daysAfter(today, 2), payable_days_after: 0 });
    const opened = await openCharge(bed, command);
    const paying = { payment_id: command.payment_id, outcome: 'paid' as const, amount_centavos: null };
    for (const day of [daysAfter(today, -1), daysAfter(opened.payable_until!, 1)])
      expect(await bed.request(simulatePixOutcome, { ...paying, paid_on: day })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_FIELDS' },
      });
    const immediate = anOpenPixCharge();
    await openCharge(bed, immediate);
    expect(
      await bed.request(simulatePixOutcome, { ...paying, payment_id: immediate.payment_id, paid_on: today }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_FIELDS' } });
    expect((await cobvAtPsp(psp.url, opened.txid)).status).toBe('ATIVA');
  });

  test('paid early, the discount of its date is taken off, and it pays the charge', async () => {
    const today = await pspToday(psp.url);
    const command = aDueCharge({
      date: daysAfter(today, 20),
      discount: { until: [{ date: daysAfter(today, 5), amount: 2000 }] },
    });
    const opened = await openCharge(bed, command);
    expect((await simulateOutcome(bed, command.payment_id, 'paid')).ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'paid');
    const [paid] = await waitFor(async () => {
      const events = await paidEvents(opened.txid);
      return events.length === 1 && events;
    });
    expect(paid).toMatchObject({
      amount_centavos: 43_000,
      amount_parts: { original: 45_000, fine: 0, interest: 0, reduction: 0, discount: 2000 },
    });
  });

  test('a sandbox payment of another amount is refused: a due-date charge is paid what is due that day', async () => {
    const command = aDueCharge({ date: await pspToday(psp.url) });
    await openCharge(bed, command);
    const refused = await simulateOutcome(bed, command.payment_id, 'paid', 100);
    expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_AMOUNT' } });
  });

  test('once the payable window passes the PSP refuses the Pix, and the charge expires', async () => {
    const today = await pspToday(psp.url);
    const command = aDueCharge({ date: today, payable_days_after: 0 });
    const opened = await openCharge(bed, command);
    expect(opened.payable_until).toBeDefined();
    // Past its last payable day at the PSP: no payer's bank can pay it any more.
    const lastDay = opened.payable_until!;
    const days = Math.round((Date.parse(lastDay) - Date.parse(today)) / 86_400_000) + 1;
    await advancePspClock(psp.url, days);
    const refused = await payDueChargeAtPsp(psp.url, opened.txid);
    expect(refused.status).toBe(400);
    // The gateway's own window follows the wall clock; the sandbox ends it at once, as for an immediate charge.
    expect((await simulateOutcome(bed, command.payment_id, 'expired')).ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'expired');
    const closed: Array<{ payload: { reason: string } }> = await bed.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE name = 'pix.charge.closed.v1'
        AND envelope->'payload'->>'txid' = $1`,
      [opened.txid],
    );
    expect(closed.map((row) => row.payload.reason)).toEqual(['expired']);
  });

  test('a Pix into a due-date charge that has ended is late funds, recorded and reported without parts', async () => {
    const command = aDueCharge({ date: daysAfter(await pspToday(psp.url), 3) });
    const opened = await openCharge(bed, command);
    expect((await simulateOutcome(bed, command.payment_id, 'expired')).ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'expired');
    // Still within its window at the PSP: a payer's bank pays it after the gateway ended it.
    expect((await payDueChargeAtPsp(psp.url, opened.txid)).status).toBe(200);
    const [late] = await waitFor(async () => {
      const events = await paidEvents(opened.txid);
      return events.length === 1 && events;
    });
    expect(late!.amount_parts).toBeNull();
    expect(await outcomeOf(late!.end_to_end_id)).toBe('late');
    const rows = await bed.service.dataSource.query('SELECT payment_id FROM late_payments WHERE txid = $1', [
      opened.txid,
    ]);
    expect(rows).toEqual([{ payment_id: command.payment_id }]);
  });

  test.each<[string, (pix: Record<string, any>) => Record<string, any>]>([
    [
      'parts that do not add up to the Pix',
      (pix: Record<string, any>) => ({
        ...pix,
        componentesValor: { original: { valor: '450.00' }, multa: { valor: '1.00' } },
      }),
    ],
    [
      'a fine on the due date, beyond what the rules allow that day',
      (pix: Record<string, any>) => ({
        ...pix,
        valor: '459.00',
        componentesValor: { original: { valor: '450.00' }, multa: { valor: '9.00' } },
      }),
    ],
    ['no parts at all', (pix: Record<string, any>) => ({ ...pix, componentesValor: undefined })],
  ])(
    'a Pix the PSP lists with %s is not accepted: recorded, and the charge (its cobv concluded) fails at once',
    async (_name, tamper) => {
      const command = aDueCharge({ date: daysAfter(await pspToday(psp.url), 2), fine: { percent_bps: 200 } });
      const opened = await openCharge(bed, command);
      // The PSP's callback is held back, so that the adapter first reads the cobv as the tampered answer lists it.
      const restoreCallbacks = await withoutPspCallbacks(psp.url, SANDBOX_PIX_KEY);
      let status: unknown;
      try {
        expect((await payDueChargeAtPsp(psp.url, opened.txid)).status).toBe(200);
        const cobv = await cobvAtPsp(psp.url, opened.txid);
        const tampered = { ...cobv, pix: cobv.pix!.map(tamper) };
        psp.faults.inject({
          fault: { kind: 'answer', status: 200, body: tampered },
          count: 100,
          method: 'GET',
          path: new RegExp(`/cobv/${opened.txid}$`),
        });
        // The Pix itself as the PSP states it (GET /pix/{e2eid}, where the adapter looks for parts GET /cobv left out).
        psp.faults.inject({
          fault: { kind: 'answer', status: 200, body: tampered.pix[0]! },
          count: 100,
          method: 'GET',
          path: new RegExp(`/pix/${cobv.pix![0]!.endToEndId}$`),
        });
        try {
          // A status read (the payment service's reconciliation) finds the Pix, judges it, and fails the charge
          // long before its window ends: the cobv is CONCLUIDA and can never be paid again.
          status = await bed.request(
            getPixChargeStatus,
            { payment_id: command.payment_id },
            { timeoutMs: 8000 },
          );
        } finally {
          psp.faults.clear();
        }
      } finally {
        await restoreCallbacks();
      }
      const [event] = await paidEvents(opened.txid);
      expect(event!.amount_parts).toBeNull();
      expect(await outcomeOf(event!.end_to_end_id)).toBe('wrong_amount');
      const [charge] = await bed.service.dataSource.query('SELECT status FROM charges WHERE txid = $1', [
        opened.txid,
      ]);
      expect(charge.status).toBe('failed');
      const closed: Array<{ payload: Record<string, unknown> }> = await bed.service.dataSource.query(
        `SELECT envelope->'payload' AS payload FROM outbox WHERE name = 'pix.charge.closed.v1'
          AND envelope->'payload'->>'txid' = $1`,
        [opened.txid],
      );
      const closure = {
        reason: 'failed',
        cause: 'amount_not_accepted',
        received_pix: [{ end_to_end_id: event!.end_to_end_id, amount_centavos: event!.amount_centavos }],
      };
      expect(closed.map((row) => row.payload)).toEqual([expect.objectContaining(closure)]);
      expect(status).toMatchObject({ ok: true, result: { status: 'failed', closure } });
    },
  );

  test('when the PSP calls back twice for one Pix, the charge is paid once', async () => {
    const command = aDueCharge({ date: daysAfter(await pspToday(psp.url), 1) });
    const opened = await openCharge(bed, command);
    expect((await simulateOutcome(bed, command.payment_id, 'paid')).ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'paid');
    const [paid] = await waitFor(async () => {
      const events = await paidEvents(opened.txid);
      return events.length === 1 && events;
    });
    const callbackUrl = `${bed.service.callbackUrl}/pix`;
    const again = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        pix: [
          {
            endToEndId: paid!.end_to_end_id,
            txid: opened.txid,
            valor: '450.00',
            horario: new Date().toISOString(),
          },
        ],
      }),
    });
    expect(again.status).toBeLessThan(300);
    await waitFor(async () => {
      const [row] = await bed.service.dataSource.query(
        `SELECT count(*)::int AS n FROM callbacks_received WHERE end_to_end_id = $1 AND outcome = 'duplicate'`,
        [paid!.end_to_end_id],
      );
      return row.n >= 1;
    });
    expect(await paidEvents(opened.txid)).toHaveLength(1);
  });

  test('a charge with a due date keeps its amount, and its cancel removes the cobv at the PSP', async () => {
    const command = aDueCharge({ date: daysAfter(await pspToday(psp.url), 5) });
    const opened = await openCharge(bed, command);
    const change = await bed.request(changePixChargeAmount, {
      payment_id: command.payment_id,
      amount_centavos: 50_000,
    });
    expect(change).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
    expect((await simulateOutcome(bed, command.payment_id, 'failed')).ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'failed');
    expect((await cobvAtPsp(psp.url, opened.txid)).status).toBe('REMOVIDA_PELO_PSP');
  });

  test('a cancelled due-date payment has its cobv removed at the PSP, and a status read says so', async () => {
    const command = aDueCharge({ date: daysAfter(await pspToday(psp.url), 5) });
    const opened = await openCharge(bed, command);
    await bed.client.publish(
      paymentCancelled,
      aPaymentEvent({
        payment_id: command.payment_id,
        method: 'pix',
        status: 'cancelled',
        amount_centavos: 45_000,
      }),
    );
    await chargeBecomes(bed, opened.txid, 'cancelled');
    expect((await cobvAtPsp(psp.url, opened.txid)).status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    const status = await bed.request(
      getPixChargeStatus,
      { payment_id: command.payment_id },
      { timeoutMs: 8000 },
    );
    expect(status).toMatchObject({
      ok: true,
      result: { status: 'failed', closure: { reason: 'failed', detail: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' } },
    });
  });

  test('a status read of a paid due-date charge reports its Pix with the parts that paid it', async () => {
    const command = aDueCharge({
      date: daysAfter(await pspToday(psp.url), 5),
      discount: { per_day_early: { amount: 10 } },
    });
    const opened = await openCharge(bed, command);
    expect((await simulateOutcome(bed, command.payment_id, 'paid')).ok).toBe(true);
    await chargeBecomes(bed, opened.txid, 'paid');
    const status = await bed.request(
      getPixChargeStatus,
      { payment_id: command.payment_id },
      { timeoutMs: 8000 },
    );
    if (!status.ok) throw new Error(JSON.stringify(status.error));
    const [pix] = status.result.pix;
    expect(pix!.amount_parts).toMatchObject({ original: 45_000, fine: 0, interest: 0 });
    expect(pix!.amount_parts!.discount).toBeGreaterThan(0);
    expect(pix!.amount_centavos).toBe(45_000 - pix!.amount_parts!.discount);
  });

  test('a due date the PSP refuses (its today already past it) is INVALID_FIELDS pix.due.date, never a 500', async () => {
    // The gateway took the date on its own today; the PSP's is later (midnight passed in between, or, in the sandbox,
    // a clock moved): the PSP refuses calendario.dataDeVencimento.
    const command = aDueCharge({ date: daysAfter(await pspToday(psp.url), -1) });
    const reply = await bed.request(openPixCharge, command, { timeoutMs: 8000 });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'INVALID_FIELDS', message: 'Campos inválidos: pix.due.date.' },
    });
  });

  test.each([
    [404, 'a PSP without /cobv'],
    [403, 'a token without the cobv scopes'],
  ])('a %i from PUT /cobv (%s) is DUE_DATE_NOT_SUPPORTED, not retried', async (status) => {
    const command = aDueCharge({ date: daysAfter(await pspToday(psp.url), 3) });
    psp.faults.inject({
      fault: { kind: 'answer', status, body: { title: 'Não encontrado', status } },
      count: 100,
      path: new RegExp(`/cobv/`),
    });
    try {
      const reply = await bed.request(openPixCharge, command, { timeoutMs: 8000 });
      expect(reply).toMatchObject({ ok: false, error: { code: 'DUE_DATE_NOT_SUPPORTED' } });
      expect(psp.faults.requestsSeen('PUT', /\/cobv\//)).toBeGreaterThan(0);
    } finally {
      psp.faults.clear();
    }
  });

  test('every open of one payment meets one cobv', async () => {
    const command = aDueCharge(
      { date: daysAfter(await pspToday(psp.url), 5) },
      { payment_id: newPublicId('pay') },
    );
    const first = await openCharge(bed, command);
    const second = await openCharge(bed, command);
    expect(second).toEqual(first);
  });
});
