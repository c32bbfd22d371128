import { SANDBOX_PIX_KEY, SANDBOX_PSP_CLIENT } from '@gateway/config';
import {
  advancePixRecurrenceClock,
  cancelPixRecurrence,
  changePixChargeAmount,
  simulatePixOutcome,
  newPublicId,
  openPixCycle,
  openPixRecurrence,
  paymentCancelled,
  simulatePixRecurrence,
  PSP_PROFILES,
  type OpenPixCycle,
  type PixRecurrenceChanged,
  type PixCycleAttemptFailed,
  type RecurrenceSimulation,
} from '@gateway/contracts';
import { CommandError, type MessageContext } from '@gateway/messaging';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import { aPaymentEvent, advancePspClock, daysAfter, pspToday, testLogger, waitFor } from '@gateway/testkit';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';
import { openRecurrence as openRecurrenceDirectly } from '../src/application/open-recurrence';
import { followCycle } from '../src/application/follow-recurrence';
import type { Cobr } from '../src/clients/psp/rec';
import { ChargeEntity } from '../src/persistence';
import {
  type AdapterBed,
  chargeBecomes,
  openCharge as openPlainCharge,
  startAdapterAgainstSandboxPsp,
  storedCharge,
} from './support/adapter';
import {
  anOpenRecurrence,
  atPsp,
  eventsBecome,
  eventsOf,
  openRecurrence,
  pspNow,
} from './support/recurrence';

// Pix Automático against the PSP simulator: recurrences (`/rec`, `/solicrec`, `/locrec`), their cycles (`/cobr`) and
// the callbacks of both. The simulator's clock is shared by the file's tests, so each states its dates from its today.

const CHANGED = 'pix.recurrence.changed.v1';
const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
const ATTEMPT_FAILED = 'pix.cycle.attempt-failed.v1';

describe('PIX adapter: Pix Automático against the PSP simulator', () => {
  let bed: AdapterBed;
  let psp: RunningPspSimulator;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, psp, payer } = await startAdapterAgainstSandboxPsp('pix-adapter-rec', () => ({
      CALLBACK_POLL_INTERVAL_MS: '200',
      RECURRENCE_RECHECK_SECONDS: '2',
    })));
  });

  afterAll(() => bed.close());

  const changes = (subscriptionId: string) =>
    eventsOf<PixRecurrenceChanged>(bed, CHANGED, 'subscription_id', subscriptionId);
  const changesBecome = (subscriptionId: string, count: number) =>
    eventsBecome<PixRecurrenceChanged>(bed, CHANGED, 'subscription_id', subscriptionId, count);
  const simulate = (subscriptionId: string, outcome: RecurrenceSimulation) =>
    bed.request(simulatePixRecurrence, { subscription_id: subscriptionId, outcome }, { timeoutMs: 10_000 });
  const recAtPsp = async (idRec: string) => (await atPsp(psp.url, 'GET', `/rec/${idRec}`)).body;

  /** A recurrence of journey 1 the payer authorized (its callback handled), starting `start`. */
  const anAuthorizedRecurrence = async (retry: 'none' | 'three_in_seven_days' = 'none') => {
    const today = await pspToday(psp.url);
    const command = anOpenRecurrence(daysAfter(today, 1), await pspNow(psp.url), { retry_policy: retry });
    const opened = await openRecurrence(bed, command);
    expect((await simulate(command.subscription_id, 'authorize')).ok).toBe(true);
    await changesBecome(command.subscription_id, 1);
    return { command, opened, today };
  };

  const aCycle = (
    subscriptionId: string,
    dueDate: string,
    overrides: Partial<OpenPixCycle> = {},
  ): OpenPixCycle => ({
    subscription_id: subscriptionId,
    payment_id: newPublicId('pay'),
    cycle: 1,
    amount_centavos: 4990,
    due_date: dueDate,
    description: 'Plano mensal: ciclo 1',
    ...overrides,
  });
  const openCycle = async (command: OpenPixCycle) => {
    const reply = await bed.request(openPixCycle, command, { timeoutMs: 10_000 });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.txid;
  };
  const cobrAtPsp = async (txid: string) => (await atPsp(psp.url, 'GET', `/cobr/${txid}`)).body;

  /** Moves the simulator's clock to the day of the cycle's pending attempt (it is then debited, or fails). */
  const reachPendingAttempt = async (txid: string) => {
    const cobr = await waitFor(async () => {
      const read = await cobrAtPsp(txid);
      return (read.tentativas ?? []).some((t: { status: string }) => t.status === 'AGENDADA') && read;
    });
    const pending = cobr.tentativas.find((t: { status: string }) => t.status === 'AGENDADA');
    const today = await pspToday(psp.url);
    const days = Math.round((Date.parse(pending.dataLiquidacao) - Date.parse(today)) / 86_400_000);
    if (days > 0) await advancePspClock(psp.url, days);
  };

  test('journey 1 (push): a rec and a request to the payer’s bank; a retried open makes no second rec', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url), {
      retry_policy: 'three_in_seven_days',
    });
    const opened = await openRecurrence(bed, command);
    expect(opened).toEqual({
      recurrence_id: expect.any(String),
      authorization: null,
      first_payment_txid: null,
    });
    const rec = await recAtPsp(opened.recurrence_id);
    expect(rec).toMatchObject({
      status: 'CRIADA',
      vinculo: { contrato: command.subscription_id, objeto: 'Plano mensal', devedor: { cpf: '12345678909' } },
      calendario: { dataInicial: command.start_date, dataFinal: command.end_date, periodicidade: 'MENSAL' },
      valor: { valorRec: '49.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
    });
    expect(rec.solicitacao).toHaveLength(1);
    expect(rec.solicitacao[0].destinatario).toMatchObject({ conta: '998877', ispbParticipante: '12345678' });
    // The same command again, under a new message id: the same recurrence, no second request.
    const again = await openRecurrence(bed, command, { messageId: newPublicId('msg') });
    expect(again.recurrence_id).toBe(opened.recurrence_id);
    expect((await recAtPsp(opened.recurrence_id)).solicitacao).toHaveLength(1);
    const list = await atPsp(
      psp.url,
      'GET',
      `/rec?inicio=${new Date(Date.now() - 3_600_000).toISOString()}&fim=${new Date(Date.now() + 3_600_000).toISOString()}&cpf=12345678909`,
    );
    expect(list.body.recs.filter((r: any) => r.vinculo.contrato === command.subscription_id)).toHaveLength(1);
  });

  test('concurrent deliveries of one open make one rec', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url));
    const replies = await Promise.all(
      [1, 2, 3].map(() =>
        bed.request(openPixRecurrence, command, { timeoutMs: 10_000, messageId: newPublicId('msg') }),
      ),
    );
    const ids = new Set(replies.flatMap((reply) => (reply.ok ? [reply.result.recurrence_id] : [])));
    expect(ids.size).toBe(1);
    // A delivery that met another one opening is told to retry; none fails otherwise.
    for (const reply of replies) if (!reply.ok) expect(reply.error.code).toBe('SERVICE_UNAVAILABLE');
  });

  test('journey 2 (qr): a location and the QR code that authorizes it', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url), {
      journey: 'qr',
      payer_account: null,
    });
    const opened = await openRecurrence(bed, command);
    const rec = await recAtPsp(opened.recurrence_id);
    expect(rec.loc.location).toEqual(expect.any(String));
    expect(opened.authorization).toMatchObject({
      qr_code: expect.stringMatching(/^data:image\/png;base64,/),
      expires_at: command.authorization_expires_at,
    });
    expect(opened.authorization!.copia_e_cola).toContain(rec.loc.location);
    expect(rec.solicitacao).toBeUndefined();
    // The sandbox payer's bank reads the QR code and the payer authorizes: approved by journey 2, reported once.
    expect((await simulate(command.subscription_id, 'authorize')).ok).toBe(true);
    const [changed] = await changesBecome(command.subscription_id, 1);
    expect(changed).toMatchObject({
      outcome: 'authorized',
      recurrence_id: opened.recurrence_id,
      reason_code: null,
    });
    expect(await recAtPsp(opened.recurrence_id)).toMatchObject({
      status: 'APROVADA',
      ativacao: { tipoJornada: 'JORNADA_2' },
      pagador: { cpf: '12345678909' },
    });
    // Answered: neither answer applies any more, and nothing changes.
    for (const outcome of ['authorize', 'reject'] as const) {
      const refused = await simulate(command.subscription_id, outcome);
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.error.code).toBe('INVALID_STATUS');
    }
    expect(await changes(command.subscription_id)).toHaveLength(1);
  });

  test('journey 2 (qr) rejected by the payer reading the QR code: rejected with its code', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url), {
      journey: 'qr',
      payer_account: null,
    });
    const opened = await openRecurrence(bed, command);
    // The same command twice (a redelivery after a lost reply): one rejection at the PSP, reported once.
    const messageId = newPublicId('msg');
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const reply = await bed.request(
        simulatePixRecurrence,
        { subscription_id: command.subscription_id, outcome: 'reject' },
        { timeoutMs: 10_000, messageId },
      );
      expect(reply.ok).toBe(true);
    }
    const [changed] = await changesBecome(command.subscription_id, 1);
    expect(changed).toMatchObject({ outcome: 'rejected', reason_code: 'AP13' });
    expect(await recAtPsp(opened.recurrence_id)).toMatchObject({
      status: 'REJEITADA',
      encerramento: { rejeicao: { codigo: 'AP13' } },
    });
    expect(await changes(command.subscription_id)).toHaveLength(1);
  });

  test('journey 3 (qr with the first payment): the cob paid by the QR code authorizes the rec, reported once each', async () => {
    const first = { payment_id: newPublicId('pay'), amount_centavos: 4990 };
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url), {
      journey: 'qr_with_first_payment',
      payer_account: null,
      first_payment: first,
    });
    const opened = await openRecurrence(bed, command);
    expect(opened.first_payment_txid).toEqual(expect.any(String));
    const rec = await recAtPsp(opened.recurrence_id);
    expect(rec.ativacao).toMatchObject({ dadosJornada: { txid: opened.first_payment_txid } });
    const cob = (await atPsp(psp.url, 'GET', `/cob/${opened.first_payment_txid}`)).body;
    expect(cob).toMatchObject({ status: 'ATIVA', valor: { original: '49.90' } });
    expect(opened.authorization!.copia_e_cola).toContain(rec.loc.location);
    expect((await storedCharge(bed, opened.first_payment_txid!)).status).toBe('active');
    // A payer who refuses journey 3 does not pay its QR code: nothing to simulate, and nothing changes.
    const refused = await simulate(command.subscription_id, 'reject');
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe('INVALID_STATUS');
    expect((await recAtPsp(opened.recurrence_id)).status).toBe('CRIADA');

    expect((await simulate(command.subscription_id, 'authorize')).ok).toBe(true);
    await chargeBecomes(bed, opened.first_payment_txid!, 'paid');
    const [changed] = await changesBecome(command.subscription_id, 1);
    expect(changed).toMatchObject({
      outcome: 'authorized',
      recurrence_id: opened.recurrence_id,
      cancelled_by: null,
    });
    await eventsBecome(bed, 'pix.charge.paid.v1', 'payment_id', first.payment_id, 1);
  });

  test('authorized, then a replayed callback: one pix.recurrence.changed.v1', async () => {
    const { command, opened } = await anAuthorizedRecurrence();
    const [changed] = await changes(command.subscription_id);
    expect(changed).toMatchObject({ outcome: 'authorized', reason_code: null, cancelled_by: null });
    // The PSP's callback again, as it sends it: still one event.
    const posted = await postCallback('rec', { recs: [{ idRec: opened.recurrence_id, status: 'APROVADA' }] });
    expect(posted.status).toBe(200);
    expect(await changes(command.subscription_id)).toHaveLength(1);
    // Authorizing an active one is refused.
    const again = await simulate(command.subscription_id, 'authorize');
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.code).toBe('INVALID_STATUS');
  });

  test('rejected by the payer: rejected with its code', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url));
    await openRecurrence(bed, command);
    expect((await simulate(command.subscription_id, 'reject')).ok).toBe(true);
    const [changed] = await changesBecome(command.subscription_id, 1);
    expect(changed).toMatchObject({ outcome: 'rejected', reason_code: 'AP13' });
  });

  test('cancelled by the payer: cancelled, by the payer, with its code; the merchant can no longer cancel it', async () => {
    const { command, today } = await anAuthorizedRecurrence();
    const txid = await openCycle(aCycle(command.subscription_id, daysAfter(today, 5)));
    expect((await simulate(command.subscription_id, 'payer_cancel')).ok).toBe(true);
    const [, cancelled] = await changesBecome(command.subscription_id, 2);
    expect(cancelled).toMatchObject({ outcome: 'cancelled', cancelled_by: 'payer', reason_code: 'SLDB' });
    // Its open cycle is cancelled at the PSP (any call there runs what fell due) and closed with why.
    await waitFor(async () => (await cobrAtPsp(txid)).status === 'CANCELADA');
    await chargeBecomes(bed, txid, 'failed');
    const [closed] = await eventsBecome<{ detail: string; cause: string | null }>(
      bed,
      'pix.charge.closed.v1',
      'txid',
      txid,
      1,
    );
    expect(closed).toMatchObject({ cause: 'cycle_cancelled', detail: expect.stringContaining('CANCELADA') });
    const reply = await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id });
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.code).toBe('INVALID_STATUS');
  });

  test('expired unauthorized when its first date passes', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 1), await pspNow(psp.url));
    await openRecurrence(bed, command);
    await advancePspClock(psp.url, 2);
    // Any call at the PSP runs what fell due; the callback (or the poll) brings it.
    const [changed] = await changesBecome(command.subscription_id, 1);
    expect(changed).toMatchObject({ outcome: 'expired', cancelled_by: null });
  });

  test('a lost callback is caught up by the poll', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url));
    await openRecurrence(bed, command);
    const { body: webhook } = await atPsp(psp.url, 'GET', '/webhookrec');
    expect((await atPsp(psp.url, 'DELETE', '/webhookrec')).status).toBe(204);
    try {
      expect((await simulate(command.subscription_id, 'authorize')).ok).toBe(true);
      const [changed] = await changesBecome(command.subscription_id, 1);
      expect(changed!.outcome).toBe('authorized');
    } finally {
      await atPsp(psp.url, 'PUT', '/webhookrec', { webhookUrl: webhook.webhookUrl });
    }
  });

  test('the merchant cancels: cancelled by the merchant once; cancelling again answers the same', async () => {
    const { command, opened } = await anAuthorizedRecurrence();
    const reply = await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id });
    expect(reply).toMatchObject({ ok: true, result: { cancelled: true } });
    expect((await recAtPsp(opened.recurrence_id)).status).toBe('CANCELADA');
    const again = await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id });
    expect(again).toMatchObject({ ok: true, result: { cancelled: true } });
    const [, cancelled] = await changesBecome(command.subscription_id, 2);
    expect(cancelled).toMatchObject({ outcome: 'cancelled', cancelled_by: 'merchant', reason_code: 'SLCR' });
    const unknown = await bed.request(cancelPixRecurrence, { subscription_id: newPublicId('sub') });
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.code).toBe('NOT_FOUND');
  });

  test('a cycle opened twice makes one cobr; debited, it is reported paid once', async () => {
    const { command, today } = await anAuthorizedRecurrence();
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(await openCycle(cycle)).toBe(txid);
    const cobr = await cobrAtPsp(txid);
    expect(cobr).toMatchObject({
      valor: { original: '49.90' },
      calendario: { dataDeVencimento: cycle.due_date },
    });
    await reachPendingAttempt(txid);
    await chargeBecomes(bed, txid, 'paid');
    const [paid] = await eventsBecome(bed, 'pix.charge.paid.v1', 'payment_id', cycle.payment_id, 1);
    expect(paid).toMatchObject({ txid, amount_centavos: 4990 });
    expect(await eventsOf(bed, ATTEMPT_FAILED, 'txid', txid)).toHaveLength(0);
    // The cycle's callback and the Pix callback again, in either order: the Pix is the payment's once.
    const { pix } = await cobrAtPsp(txid);
    expect((await postCallback('cobr', { cobsr: [{ txid, idRec: cycle.subscription_id }] })).status).toBe(
      200,
    );
    const token = new URL(bed.service.callbackUrl).searchParams.get('token')!;
    const pixCallback = await fetch(`${callbackBase()}/webhook?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pix }),
    });
    expect(pixCallback.status).toBe(200);
    expect((await postCallback('cobr', { cobsr: [{ txid }] })).status).toBe(200);
    expect(await eventsOf(bed, 'pix.charge.paid.v1', 'payment_id', cycle.payment_id)).toHaveLength(1);
  });

  test('the database holds API Pix’s moves of a recurrence', async () => {
    const { command } = await anAuthorizedRecurrence();
    const move = (to: string) =>
      bed.service.dataSource.query(`UPDATE recurrences SET psp_status = $2 WHERE subscription_id = $1`, [
        command.subscription_id,
        to,
      ]);
    await expect(move('CRIADA')).rejects.toThrow(/not a move of API Pix/);
    await expect(move('REJEITADA')).rejects.toThrow(/not a move of API Pix/);
    // Cancelled says by whom.
    await expect(move('CANCELADA')).rejects.toThrow(/recurrences_cancelled_by_is_cancelled/);
  });

  test('a cycle whose cobr reached the PSP but whose charge was never recorded is answered with it after the recurrence ended', async () => {
    const { command, today } = await anAuthorizedRecurrence();
    const cycle = aCycle(command.subscription_id, daysAfter(today, 5));
    const txid = await openCycle(cycle);
    // The first ask's charge lost (the adapter died before its commit), then the merchant cancels.
    await bed.service.dataSource.query(`DELETE FROM charges WHERE txid = $1`, [txid]);
    const cancel = await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id });
    expect(cancel).toMatchObject({ ok: true, result: { cancelled: true } });
    // Asked again: the PSP holds the cobr, so it is the cycle's, recorded for its payment.
    expect(await openCycle(cycle)).toBe(txid);
    const [charge] = (await bed.service.dataSource.query(
      `SELECT payment_id, subscription_id, cycle FROM charges WHERE txid = $1`,
      [txid],
    )) as Array<{ payment_id: string; subscription_id: string; cycle: number }>;
    expect(charge).toEqual({
      payment_id: cycle.payment_id,
      subscription_id: command.subscription_id,
      cycle: 1,
    });
    // A cycle that never reached the PSP is still refused.
    const never = await bed.request(
      openPixCycle,
      aCycle(command.subscription_id, daysAfter(today, 35), { cycle: 2 }),
    );
    expect(never).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
  });

  test('a cycle of a recurrence not authorized is refused', async () => {
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url));
    await openRecurrence(bed, command);
    const reply = await bed.request(openPixCycle, aCycle(command.subscription_id, command.start_date));
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.code).toBe('INVALID_STATUS');
  });

  test('with retries, each failed attempt is reported with the next one; the last closes it debit_failed', async () => {
    const { command, today } = await anAuthorizedRecurrence('three_in_seven_days');
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await waitFor(async () =>
        (await cobrAtPsp(txid)).tentativas?.some((t: any) => t.status === 'AGENDADA'),
      );
      expect((await atPsp(psp.url, 'POST', `/sandbox/cobr/${txid}/falhar`, {})).status).toBe(200);
      await reachPendingAttempt(txid);
      const events = await eventsBecome<PixCycleAttemptFailed>(bed, ATTEMPT_FAILED, 'txid', txid, attempt);
      const latest = events[attempt - 1]!;
      expect(latest).toMatchObject({ attempt, reason_code: 'AM02', payment_id: cycle.payment_id });
      if (attempt < 4) expect(latest.next_attempt_on).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/));
      else expect(latest.next_attempt_on).toBeNull();
    }
    // No retry left, but the cobr is still ATIVA within its window: the PSP may still debit it, so it stays open
    // (the poll reads it meanwhile) until the PSP ends it, past the seventh day after its due date.
    await bed.service.recurrencePoll.pollOnce();
    expect((await cobrAtPsp(txid)).status).toBe('ATIVA');
    expect((await storedCharge(bed, txid)).status).toBe('active');
    expect(await eventsOf(bed, 'pix.charge.closed.v1', 'txid', txid)).toHaveLength(0);
    await advancePspClock(psp.url, Math.max(1, daysBetween(await pspToday(psp.url), cycle.due_date) + 8));
    await waitFor(async () => (await cobrAtPsp(txid)).status === 'EXPIRADA');
    await chargeBecomes(bed, txid, 'failed');
    const [closed] = await eventsBecome(bed, 'pix.charge.closed.v1', 'txid', txid, 1);
    expect(closed).toMatchObject({ reason: 'failed', cause: 'debit_failed' });
  });

  test('without retries, the failed attempt closes the cycle debit_failed', async () => {
    const { command, today } = await anAuthorizedRecurrence('none');
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    await waitFor(async () => (await cobrAtPsp(txid)).tentativas?.some((t: any) => t.status === 'AGENDADA'));
    expect(
      (await atPsp(psp.url, 'POST', `/sandbox/cobr/${txid}/falhar`, { codigo: 'AM04' })).status,
    ).not.toBe(500);
    expect((await atPsp(psp.url, 'POST', `/sandbox/cobr/${txid}/falhar`, {})).status).toBe(200);
    await reachPendingAttempt(txid);
    const [failed] = await eventsBecome<PixCycleAttemptFailed>(bed, ATTEMPT_FAILED, 'txid', txid, 1);
    expect(failed).toMatchObject({ attempt: 1, next_attempt_on: null });
    const [closed] = await eventsBecome(bed, 'pix.charge.closed.v1', 'txid', txid, 1);
    expect(closed).toMatchObject({ reason: 'failed', cause: 'debit_failed' });
  });

  test('a cancelled cycle payment cancels its cobr', async () => {
    const { command, today } = await anAuthorizedRecurrence();
    const cycle = aCycle(command.subscription_id, daysAfter(today, 5));
    const txid = await openCycle(cycle);
    // A cycle is debited by the payer's bank: neither a charge's simulation nor an amount change applies to it.
    for (const reply of [
      await bed.request(simulatePixOutcome, {
        payment_id: cycle.payment_id,
        outcome: 'paid',
        amount_centavos: null,
      }),
      await bed.request(changePixChargeAmount, { payment_id: cycle.payment_id, amount_centavos: 5990 }),
    ]) {
      expect(reply.ok).toBe(false);
      if (!reply.ok) expect(reply.error.code).toBe('INVALID_STATUS');
    }
    await bed.client.publish(
      paymentCancelled,
      aPaymentEvent({
        payment_id: cycle.payment_id,
        method: 'pix',
        status: 'cancelled',
        amount_centavos: 4990,
      }),
    );
    await chargeBecomes(bed, txid, 'cancelled');
    expect(await cobrAtPsp(txid)).toMatchObject({ status: 'CANCELADA' });
  });

  test('cancelling the subscription cancels its open cycles, each then closed', async () => {
    const { command, today } = await anAuthorizedRecurrence();
    const cycle = aCycle(command.subscription_id, daysAfter(today, 5));
    const txid = await openCycle(cycle);
    expect(
      await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id }),
    ).toMatchObject({
      ok: true,
      result: { cancelled: true, kept_payment_ids: [] },
    });
    await waitFor(async () => (await cobrAtPsp(txid)).status === 'CANCELADA');
    await chargeBecomes(bed, txid, 'failed');
    // Cancelled, not a failed debit: its own cause, so the payment is cancelled.
    const [closed] = await eventsBecome(bed, 'pix.charge.closed.v1', 'txid', txid, 1);
    expect(closed).toMatchObject({ reason: 'failed', cause: 'cycle_cancelled' });
  });

  test('a cycle the PSP debited before the merchant cancels is kept: the answer names it, and its debit is paid', async () => {
    const { command, today, opened } = await anAuthorizedRecurrence();
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    // The recurrence's clock at the PSP passes the due date first: the payer's bank debits the cycle.
    const moved = await atPsp(psp.url, 'POST', `/sandbox/rec/${opened.recurrence_id}/relogio/avancar`, {
      ate: daysAfter(cycle.due_date, 1),
    });
    expect(moved.status).toBe(200);
    await waitFor(async () => (await cobrAtPsp(txid)).status === 'CONCLUIDA');
    expect(
      await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id }),
    ).toMatchObject({
      ok: true,
      result: { cancelled: true, kept_payment_ids: [cycle.payment_id] },
    });
    await eventsBecome(bed, 'pix.charge.paid.v1', 'payment_id', cycle.payment_id, 1);
    expect(await eventsOf(bed, 'pix.charge.closed.v1', 'txid', txid)).toHaveLength(0);
  });

  test('a cycle cancelled by its payer’s cancelling the recurrence closes cycle_cancelled', async () => {
    const { command, today } = await anAuthorizedRecurrence();
    const cycle = aCycle(command.subscription_id, daysAfter(today, 5));
    const txid = await openCycle(cycle);
    expect((await simulate(command.subscription_id, 'payer_cancel')).ok).toBe(true);
    // The PSP cancels the recurrence's open cycle when it next runs it.
    await advancePspClock(psp.url, 1);
    await waitFor(async () => (await cobrAtPsp(txid)).status === 'CANCELADA');
    const [closed] = await eventsBecome(bed, 'pix.charge.closed.v1', 'txid', txid, 1);
    expect(closed).toMatchObject({ reason: 'failed', cause: 'cycle_cancelled' });
  });

  test('a failure learnt late still gets its retry: the day after the PSP’s today, not the past day after the attempt', async () => {
    const { command, today, opened } = await anAuthorizedRecurrence('three_in_seven_days');
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    await waitFor(async () => (await cobrAtPsp(txid)).tentativas?.some((t: any) => t.status === 'AGENDADA'));
    expect((await atPsp(psp.url, 'POST', `/sandbox/cobr/${txid}/falhar`, {})).status).toBe(200);
    // The recurrence's clock moves at the PSP, past the attempt's day, before the adapter hears of the failure.
    const moved = await atPsp(psp.url, 'POST', `/sandbox/rec/${opened.recurrence_id}/relogio/avancar`, {
      ate: daysAfter(cycle.due_date, 3),
    });
    expect(moved.status).toBe(200);
    const [failed] = await eventsBecome<PixCycleAttemptFailed>(bed, ATTEMPT_FAILED, 'txid', txid, 1);
    expect(failed).toMatchObject({ attempt: 1 });
    expect(failed!.next_attempt_on! > daysAfter(cycle.due_date, 1)).toBe(true);
    await atPsp(psp.url, 'POST', `/sandbox/rec/${opened.recurrence_id}/relogio/avancar`, {
      ate: failed!.next_attempt_on,
    });
    await chargeBecomes(bed, txid, 'paid');
    await eventsBecome(bed, 'pix.charge.paid.v1', 'payment_id', cycle.payment_id, 1);
    expect(await eventsOf(bed, 'pix.charge.closed.v1', 'txid', txid)).toHaveLength(0);
  });

  test('attempts of the payer’s bank (RIFL) beyond four are reported, and are not among the three retries', async () => {
    const { command, today } = await anAuthorizedRecurrence('three_in_seven_days');
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    const read = await waitFor(async () => {
      const cobr = await payer.getCycle(txid);
      return (cobr.tentativas ?? []).some((t) => t.status === 'AGENDADA') && cobr;
    });
    const scheduled = read.tentativas![0]!;
    // What a PSP states after the payer's bank's own attempts: five rejected, two of them RIFL, two of our retries.
    const rejected = (tipo: 'AGND' | 'NTAG' | 'RIFL') => ({
      ...scheduled,
      tipo,
      status: 'REJEITADA' as const,
      dataLiquidacao: cycle.due_date,
      rejeicao: { codigo: 'AM02' },
    });
    const stated: Cobr = {
      ...read,
      tentativas: [rejected('AGND'), rejected('RIFL'), rejected('RIFL'), rejected('NTAG'), rejected('NTAG')],
    };
    const charge = await bed.service.dataSource.manager.findOneByOrFail(ChargeEntity, { txid });
    await followCycle(
      {
        dataSource: bed.service.dataSource,
        uow: bed.service.unitOfWork('test-follow'),
        psp: { forAccount: async () => payer, removeCharge: (id: string) => payer.removeCharge(id) },
        logger: testLogger('follow'),
        appEnv: 'sandbox',
      },
      charge,
      stated,
    );
    const events = await eventsBecome<PixCycleAttemptFailed>(bed, ATTEMPT_FAILED, 'txid', txid, 5);
    expect(events.map((event) => event.attempt)).toEqual([1, 2, 3, 4, 4]);
    // One retry of our three is left: it is asked for (the PSP here still holds its first attempt, so that is next).
    expect(events[4]!.next_attempt_on).toBe(scheduled.dataLiquidacao);
    expect((await storedCharge(bed, txid)).status).toBe('active');
  });

  test('advance steps the clock through the retry window: a failed first attempt is retried and debited', async () => {
    const { command, today } = await anAuthorizedRecurrence('three_in_seven_days');
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    expect((await simulate(command.subscription_id, 'fail_next_cycle')).ok).toBe(true);
    const moved = await bed.request(
      advancePixRecurrenceClock,
      { subscription_id: command.subscription_id, to: daysAfter(cycle.due_date, 20) },
      { timeoutMs: 30_000 },
    );
    expect(moved).toMatchObject({ ok: true, result: { today: daysAfter(cycle.due_date, 20) } });
    const [failed] = await eventsBecome<PixCycleAttemptFailed>(bed, ATTEMPT_FAILED, 'txid', txid, 1);
    expect(failed).toMatchObject({ attempt: 1, next_attempt_on: daysAfter(cycle.due_date, 1) });
    await chargeBecomes(bed, txid, 'paid');
    await eventsBecome(bed, 'pix.charge.paid.v1', 'payment_id', cycle.payment_id, 1);
    expect(await eventsOf(bed, ATTEMPT_FAILED, 'txid', txid)).toHaveLength(1);
    expect(await eventsOf(bed, 'pix.charge.closed.v1', 'txid', txid)).toHaveLength(0);
  });

  test('journey 3: the recurrence cancelled by the merchant removes its unpaid first cob once', async () => {
    const first = { payment_id: newPublicId('pay'), amount_centavos: 4990 };
    const command = anOpenRecurrence(daysAfter(await pspToday(psp.url), 3), await pspNow(psp.url), {
      journey: 'qr_with_first_payment',
      payer_account: null,
      first_payment: first,
    });
    const opened = await openRecurrence(bed, command);
    const txid = opened.first_payment_txid!;
    expect((await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id })).ok).toBe(
      true,
    );
    await chargeBecomes(bed, txid, 'cancelled');
    expect((await atPsp(psp.url, 'GET', `/cob/${txid}`)).body).toMatchObject({
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
    const updatedAt = async () =>
      (await bed.service.dataSource.query('SELECT updated_at FROM charges WHERE txid = $1', [txid]))[0]
        .updated_at as Date;
    const removedAt = await updatedAt();
    // The payment service cancels the first payment too: nothing is removed again.
    await bed.client.publish(
      paymentCancelled,
      aPaymentEvent({
        payment_id: first.payment_id,
        method: 'pix',
        status: 'cancelled',
        amount_centavos: 4990,
      }),
    );
    // With one event at a time, a later cancellation handled means this one was.
    const probe = await openPlainCharge(bed);
    await bed.client.publish(
      paymentCancelled,
      aPaymentEvent({
        payment_id: probe.payment_id,
        method: 'pix',
        status: 'cancelled',
        amount_centavos: 2500,
      }),
    );
    await chargeBecomes(bed, probe.txid, 'cancelled');
    expect(await updatedAt()).toEqual(removedAt);
    expect(await eventsOf(bed, 'pix.charge.closed.v1', 'txid', txid)).toHaveLength(0);
  });

  test('a PSP profile without Pix Automático, or a token without its scopes, refuses before any rec', async () => {
    const today = await pspToday(psp.url);
    const run = async (client: ApiPixClient) => {
      const command = anOpenRecurrence(daysAfter(today, 3), await pspNow(psp.url));
      const context = { logger: testLogger('rec'), envelope: {}, attempt: 1 } as unknown as MessageContext;
      const error = await openRecurrenceDirectly(
        {
          dataSource: bed.service.dataSource,
          psp: { chargeAccountOf: () => ({ accountId: null, pixKey: null, client }) },
          pixKey: SANDBOX_PIX_KEY,
          merchantCity: 'SAO PAULO',
          receiverAccount: '0001/1234567/CORRENTE',
        },
        command,
        context,
      ).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(CommandError);
      expect((error as CommandError).code).toBe('AUTOMATIC_PIX_NOT_SUPPORTED');
      return command;
    };
    const access = {
      baseUrl: psp.url,
      pathPrefix: '/v2',
      oauthTokenUrl: `${psp.url}/oauth/token`,
      clientId: SANDBOX_PSP_CLIENT.id,
      clientSecret: SANDBOX_PSP_CLIENT.secret,
      timeoutMs: 3000,
      maxRetries: 0,
    };
    const withoutProfile = new ApiPixClient({
      ...access,
      profile: { ...PSP_PROFILES.bcb, automaticPix: false },
    });
    const withoutScopes = new ApiPixClient({ ...access, automaticPixScope: 'cob.read' });
    try {
      const refused = await run(withoutProfile);
      const rows = await bed.service.dataSource.query(
        'SELECT 1 FROM recurrences WHERE subscription_id = $1',
        [refused.subscription_id],
      );
      expect(rows).toHaveLength(0);
      // The PSP answers 403 (no scope): the same refusal, never retried.
      await run(withoutScopes);
    } finally {
      await withoutProfile.close();
      await withoutScopes.close();
    }
  });

  test('hostile callbacks change nothing and never crash the adapter', async () => {
    const { command, opened } = await anAuthorizedRecurrence();
    const before = await changes(command.subscription_id);
    const hostile: unknown[] = [
      { recs: [{ idRec: 'RR1234567820240101aaaaaaaaaaa', status: 'CANCELADA' }] },
      { recs: [{ idRec: `${opened.recurrence_id.slice(0, 28)}\u0000`, status: 'CANCELADA' }] },
      { recs: 'CANCELADA' },
      { recs: [null, 42, { idRec: { $ne: null } }] },
      [],
      'not json',
    ];
    for (const body of hostile) expect((await postCallback('rec', body)).status).toBeLessThan(500);
    for (const body of [
      { cobsr: [{ txid: 'x'.repeat(40) }] },
      { cobsr: [{ txid: `${'A'.repeat(30)}\u0000` }] },
    ])
      expect((await postCallback('cobr', body)).status).toBeLessThan(500);
    // Without the token: refused.
    const unauthenticated = await fetch(`${callbackBase()}/webhook/rec`, { method: 'POST', body: '{}' });
    expect(unauthenticated.status).toBe(401);
    expect(await changes(command.subscription_id)).toEqual(before);
    expect((await recAtPsp(opened.recurrence_id)).status).toBe('APROVADA');
    // And the adapter still answers.
    const after = await bed.request(cancelPixRecurrence, { subscription_id: command.subscription_id });
    expect(after.ok).toBe(true);
  });

  // These use the simulator's per-recurrence routes (`/sandbox/rec/:idRec/relogio/avancar`, `/falhar-proxima`).
  test('advance: the recurrence’s own clock moves, its cycle is debited; fail_next_cycle fails the next attempt', async () => {
    const { command, today } = await anAuthorizedRecurrence();
    const cycle = aCycle(command.subscription_id, daysAfter(today, 2));
    const txid = await openCycle(cycle);
    expect((await simulate(command.subscription_id, 'fail_next_cycle')).ok).toBe(true);
    const moved = await bed.request(advancePixRecurrenceClock, {
      subscription_id: command.subscription_id,
      to: daysAfter(today, 6),
    });
    expect(moved).toMatchObject({ ok: true, result: { today: daysAfter(today, 6) } });
    const [failed] = await eventsBecome<PixCycleAttemptFailed>(bed, ATTEMPT_FAILED, 'txid', txid, 1);
    expect(failed).toMatchObject({ attempt: 1, next_attempt_on: null });
    await eventsBecome(bed, 'pix.charge.closed.v1', 'txid', txid, 1);
    const back = await bed.request(advancePixRecurrenceClock, {
      subscription_id: command.subscription_id,
      to: today,
    });
    expect(back.ok).toBe(false);
    if (!back.ok) expect(back.error.code).toBe('INVALID_FIELDS');
  });

  const callbackBase = () => bed.service.callbackUrl.replace(/\/webhook\?.*$/, '');
  const postCallback = (kind: 'rec' | 'cobr', body: unknown) => {
    const token = new URL(bed.service.callbackUrl).searchParams.get('token')!;
    return fetch(`${callbackBase()}/webhook/${kind}?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  };
});
