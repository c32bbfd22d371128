import { createHash, randomUUID } from 'node:crypto';
import { payoutRequested, type PixPayoutSettled } from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import {
  poisonedEnvelope,
  publishAndAwaitHandling,
  publishAndAwaitParking,
  takeParkedMessages,
  waitFor,
} from '@gateway/testkit';
import { SANDBOX_PIX_KEY, loadPixAdapterConfig } from '../src/config';
import { startPixAdapter } from '../src/main';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import { type PixPayoutPort } from '../src/clients/psp/envio';
import { idEnvioOf } from '../src/domain/id-envio';
import { type AdapterBed, eventsParkingQueue, startAdapterAgainstSandboxPsp } from './support/adapter';
import { aPayoutRequested, fundSandboxAccount, sandboxSendsConsole } from './support/payout';

interface PayoutRow {
  status: string;
  id_envio: string;
  amount: number;
  end_to_end_id: string | null;
  failure_reason: string | null;
  attempts: number;
  held_reason: string | null;
}

describe('payout.requested.v1: payouts sent as Efí "envio de Pix" from the platform account', () => {
  let bed: AdapterBed;
  let psp: RunningPspSimulator;
  let payer: ApiPixClient;
  let sends: PixPayoutPort;

  beforeAll(async () => {
    ({ bed, psp, payer } = await startAdapterAgainstSandboxPsp('pix-adapter-payouts', () => ({
      PAYOUT_OVERDUE_SECONDS: '1',
      PAYOUT_RETRY_FIRST_SECONDS: '1',
      PAYOUT_RETRY_MAX_SECONDS: '1',
      CALLBACK_POLL_INTERVAL_MS: '200',
    })));
    sends = sandboxSendsConsole(psp.url);
    await fundSandboxAccount(payer, 1_000_000);
  });

  afterAll(async () => {
    await sends.close();
    await bed.close();
  });

  afterEach(() => {
    psp.faults.clear();
    psp.envioRules.clear();
  });

  const settledEvents = async (payoutId: string): Promise<PixPayoutSettled[]> =>
    (
      await bed.service.dataSource.query(
        `SELECT envelope->'payload' AS payload FROM outbox
          WHERE name = 'pix.payout.settled.v1' AND envelope->'payload'->>'payout_id' = $1 ORDER BY seq`,
        [payoutId],
      )
    ).map((row: { payload: PixPayoutSettled }) => row.payload);

  const settled = (payoutId: string, timeoutMs = 10_000): Promise<PixPayoutSettled> =>
    waitFor(async () => (await settledEvents(payoutId))[0], {
      what: `payout ${payoutId} settled`,
      timeoutMs,
    });

  const payoutRow = async (payoutId: string): Promise<PayoutRow | undefined> =>
    (
      await bed.service.dataSource.query(
        `SELECT status, id_envio, amount_centavos::int AS amount, end_to_end_id, failure_reason, attempts, held_reason
           FROM payouts WHERE payout_id = $1`,
        [payoutId],
      )
    )[0];

  const storedPayout = (payoutId: string): Promise<PayoutRow> =>
    waitFor(() => payoutRow(payoutId), { what: `payout ${payoutId} stored` });

  /** The PUTs of this send the PSP received (faulted or not). */
  const putsOf = (idEnvio: string): number =>
    psp.faults.requestsSeen('PUT', new RegExp(`^/v3/gn/pix/${idEnvio}$`));

  /** Payout attempts held for `reason`, as the adapter counts them. */
  async function heldAttempts(reason: string): Promise<number> {
    const metric = await metricsRegistry.getSingleMetric('pix_payout_attempts_held_total')?.get();
    return (metric?.values ?? [])
      .filter((value) => value.labels.reason === reason)
      .reduce((sum, value) => sum + value.value, 0);
  }

  /** Waits until the PSP has told every settled send (nothing more will come by callback). */
  const callbacksTold = () =>
    waitFor(async () => (await psp.envioCallbacksPending()) === 0, { what: 'every send told by callback' });

  test('a payout is sent once, settles paid with its endToEndId, and one pix.payout.settled.v1 goes out', async () => {
    const request = aPayoutRequested({ amount_centavos: 3050 });
    const before = await sends.readBalance();
    await bed.client.publish(payoutRequested, request);

    const event = await settled(request.payout_id);
    expect(event).toEqual({
      payout_id: request.payout_id,
      outcome: 'paid',
      end_to_end_id: expect.stringMatching(/^E[a-zA-Z0-9]{31}$/),
      failure_reason: null,
      settled_at: expect.any(String),
    });
    const row = (await payoutRow(request.payout_id))!;
    expect(row).toMatchObject({
      status: 'paid',
      amount: 3050,
      end_to_end_id: event.end_to_end_id,
      failure_reason: null,
    });
    expect(await sends.readSentPix(row.id_envio)).toMatchObject({
      idEnvio: row.id_envio,
      endToEndId: event.end_to_end_id,
      amountCentavos: 3050,
      status: 'REALIZADO',
      destinationKey: '12345678909',
    });
    expect(putsOf(row.id_envio)).toBe(1);
    expect(await sends.readBalance()).toBe(before - 3050);
    // The PSP's callback comes too: the payout is settled already, nothing more goes out.
    await callbacksTold();
    expect(await settledEvents(request.payout_id)).toHaveLength(1);
  });

  test('a payout a PSP rule fails (receiving account closed) settles failed with the reason the PSP told', async () => {
    psp.envioRules.fail({
      chave: 'conta-encerrada@example.com',
      failure: { motivo: 'Conta do recebedor encerrada' },
    });
    const before = await sends.readBalance();
    const request = aPayoutRequested({
      amount_centavos: 1200,
      destination: {
        pix_key: 'conta-encerrada@example.com',
        pix_key_type: 'email',
        holder_document: '12345678000195',
      },
    });
    await bed.client.publish(payoutRequested, request);

    const event = await settled(request.payout_id);
    expect(event).toEqual({
      payout_id: request.payout_id,
      outcome: 'failed',
      end_to_end_id: expect.stringMatching(/^E/),
      failure_reason:
        'O envio não foi realizado (AC03, PSP do usuário recebedor): Conta do recebedor encerrada',
      settled_at: expect.any(String),
    });
    expect(await payoutRow(request.payout_id)).toMatchObject({
      status: 'failed',
      failure_reason: event.failure_reason,
    });
    // The money came back to the account.
    expect(await sends.readBalance()).toBe(before);
  });

  test('the reason a callback told is kept on the payout: settled by the poll after a restart, it still fails with it', async () => {
    // The PSP cannot be read for now: the callback is heard, but the send cannot be read back to settle it.
    psp.faults.inject({
      fault: { kind: 'server-error', status: 503 },
      count: 100_000,
      method: 'GET',
      path: /^\/v2\/gn\/pix\/enviados\//,
    });
    psp.envioRules.fail({
      chave: 'conta-bloqueada@example.com',
      failure: { motivo: 'Conta do recebedor bloqueada' },
    });
    const request = aPayoutRequested({
      amount_centavos: 1310,
      destination: {
        pix_key: 'conta-bloqueada@example.com',
        pix_key_type: 'email',
        holder_document: '12345678000195',
      },
    });
    await bed.client.publish(payoutRequested, request);
    await waitFor(
      async () =>
        (
          await bed.service.dataSource.query(
            `SELECT reported_failure FROM payouts WHERE payout_id = $1 AND status = 'processing'`,
            [request.payout_id],
          )
        )[0]?.reported_failure ?? undefined,
      { what: 'the callback failure kept on the open payout' },
    );
    await callbacksTold();

    // A new process, which never heard the callback (the PSP will not tell it again), settles the payout by its poll.
    await bed.service.stop();
    bed.service = await startPixAdapter(
      loadPixAdapterConfig({
        ...bed.env.config,
        PSP_BASE_URL: psp.url,
        CALLBACK_PORT: '0',
        PAYOUT_OVERDUE_SECONDS: '1',
        PAYOUT_RETRY_FIRST_SECONDS: '1',
        PAYOUT_RETRY_MAX_SECONDS: '1',
        CALLBACK_POLL_INTERVAL_MS: '200',
      }),
    );
    psp.faults.clear();
    const event = await settled(request.payout_id);
    expect(event).toMatchObject({
      outcome: 'failed',
      failure_reason:
        'O envio não foi realizado (AC03, PSP do usuário recebedor): Conta do recebedor bloqueada',
    });
    expect(await payoutRow(request.payout_id)).toMatchObject({
      status: 'failed',
      failure_reason: event.failure_reason,
    });
  });

  test('the same payout delivered twice, and again under a new message id, is sent once', async () => {
    const request = aPayoutRequested({ amount_centavos: 777 });
    const { config } = bed.env;
    const messageId = randomUUID();
    await publishAndAwaitHandling(config, payoutRequested, request, { messageId });
    await publishAndAwaitHandling(config, payoutRequested, request, { messageId });
    await publishAndAwaitHandling(config, payoutRequested, request);
    const event = await settled(request.payout_id);
    await publishAndAwaitHandling(config, payoutRequested, request);

    expect(event.outcome).toBe('paid');
    const row = (await payoutRow(request.payout_id))!;
    expect(putsOf(row.id_envio)).toBe(1);
    await callbacksTold();
    expect(await settledEvents(request.payout_id)).toHaveLength(1);
  });

  test('the same payout id with another amount or destination is not sent again', async () => {
    const request = aPayoutRequested({ amount_centavos: 500 });
    await bed.client.publish(payoutRequested, request);
    await settled(request.payout_id);
    const { config } = bed.env;

    await publishAndAwaitHandling(config, payoutRequested, { ...request, amount_centavos: 50_000 });
    await publishAndAwaitHandling(config, payoutRequested, {
      ...request,
      destination: { pix_key: '98765432100', pix_key_type: 'cpf', holder_document: '98765432100' },
    });

    const row = (await payoutRow(request.payout_id))!;
    expect(row).toMatchObject({ status: 'paid', amount: 500 });
    expect(putsOf(row.id_envio)).toBe(1);
    expect(await sends.readSentPix(row.id_envio)).toMatchObject({ amountCentavos: 500 });
  });

  test('when the answer to the send is lost, the send is read back by its idEnvio: one send, paid', async () => {
    const request = aPayoutRequested({ amount_centavos: 901 });
    const before = await sends.readBalance();
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PUT', path: /^\/v3\/gn\/pix\// });
    await bed.client.publish(payoutRequested, request);

    const event = await settled(request.payout_id);
    expect(event.outcome).toBe('paid');
    const row = (await payoutRow(request.payout_id))!;
    // The first PUT was carried out and its answer lost; the second met that send (409) and read it back.
    expect(putsOf(row.id_envio)).toBe(2);
    expect(await sends.readSentPix(row.id_envio)).toMatchObject({ endToEndId: event.end_to_end_id });
    expect(await sends.readBalance()).toBe(before - 901);
  });

  test('when the PSP answers too late, the send is read back by its idEnvio: one send, paid', async () => {
    const request = aPayoutRequested({ amount_centavos: 902 });
    const before = await sends.readBalance();
    // Longer than PSP_TIMEOUT_MS (1.5 s): the adapter gives up on the answer while the PSP carries the send out.
    psp.faults.inject({
      fault: { kind: 'slow', delayMs: 2500 },
      count: 1,
      method: 'PUT',
      path: /^\/v3\/gn\/pix\//,
    });
    await bed.client.publish(payoutRequested, request);

    const event = await settled(request.payout_id);
    expect(event.outcome).toBe('paid');
    const row = (await payoutRow(request.payout_id))!;
    expect(await sends.readSentPix(row.id_envio)).toMatchObject({ endToEndId: event.end_to_end_id });
    expect(await sends.readBalance()).toBe(before - 902);
  });

  test('while the PSP is down the payout waits (never failed) and is sent once when it is back', async () => {
    const request = aPayoutRequested({ amount_centavos: 903 });
    const heldBefore = await heldAttempts('unavailable');
    psp.faults.inject({ fault: { kind: 'server-error', status: 503 }, count: 1000, method: 'PUT' });
    await bed.client.publish(payoutRequested, request);

    const held = await waitFor(
      async () => {
        const row = await payoutRow(request.payout_id);
        return row !== undefined && row.attempts >= 2 ? row : undefined;
      },
      { what: 'the payout tried twice while the PSP is down' },
    );
    expect(held).toMatchObject({ status: 'requested', held_reason: 'unavailable' });
    expect(await heldAttempts('unavailable')).toBeGreaterThanOrEqual(heldBefore + 2);
    expect(await settledEvents(request.payout_id)).toEqual([]);
    psp.faults.clear();

    const event = await settled(request.payout_id);
    expect(event.outcome).toBe('paid');
    expect(await sends.readSentPix(held.id_envio)).toMatchObject({ amountCentavos: 903 });
  });

  test('a payout larger than the PSP balance fails "saldo insuficiente", and nothing is sent', async () => {
    const balance = await sends.readBalance();
    const request = aPayoutRequested({ amount_centavos: balance + 1 });
    await bed.client.publish(payoutRequested, request);

    const event = await settled(request.payout_id);
    expect(event).toEqual({
      payout_id: request.payout_id,
      outcome: 'failed',
      end_to_end_id: null,
      failure_reason: expect.stringMatching(
        /^O PSP recusou o envio \(saldo insuficiente na conta da plataforma\): O saldo em conta é insuficiente/,
      ),
      settled_at: expect.any(String),
    });
    const row = (await payoutRow(request.payout_id))!;
    expect(await sends.readSentPix(row.id_envio)).toBeUndefined();
    expect(await sends.readBalance()).toBe(balance);
  });

  test('a destination key of another holder fails at once with the PSP refusal', async () => {
    const request = aPayoutRequested({
      destination: { pix_key: '12345678909', pix_key_type: 'cpf', holder_document: '98765432100' },
    });
    await bed.client.publish(payoutRequested, request);
    expect(await settled(request.payout_id)).toMatchObject({
      outcome: 'failed',
      end_to_end_id: null,
      failure_reason: expect.stringContaining('a chave Pix não pertence ao documento do titular cadastrado'),
    });
  });

  test('when the send callback is lost, the poll reads the send and settles the payout', async () => {
    const request = aPayoutRequested({ amount_centavos: 904 });
    await payer.registerWebhook(SANDBOX_PIX_KEY, 'http://127.0.0.1:9');
    try {
      await bed.client.publish(payoutRequested, request);
      const event = await settled(request.payout_id, 15_000);
      expect(event).toMatchObject({ outcome: 'paid', end_to_end_id: expect.any(String) });
      const row = (await payoutRow(request.payout_id))!;
      expect(await sends.readSentPix(row.id_envio)).toMatchObject({ status: 'REALIZADO' });
    } finally {
      await payer.registerWebhook(SANDBOX_PIX_KEY, bed.service.callbackUrl);
    }
  });

  test('a forged callback settles nothing the PSP does not report: the adapter re-reads the send', async () => {
    const request = aPayoutRequested({ amount_centavos: 905 });
    const stored = aPayoutRequested({ amount_centavos: 906 });
    await bed.client.publish(payoutRequested, stored);
    const paid = await settled(stored.payout_id);
    const paidRow = (await payoutRow(stored.payout_id))!;
    // The PSP is down for this payout's sends: it waits, and the PSP holds nothing under its idEnvio.
    psp.faults.inject({ fault: { kind: 'server-error', status: 503 }, count: 1000, method: 'PUT' });
    await bed.client.publish(payoutRequested, request);
    const held = await waitFor(
      async () => {
        const row = await payoutRow(request.payout_id);
        return row?.held_reason === 'unavailable' ? row : undefined;
      },
      { what: 'the payout waiting for the PSP' },
    );

    const forged = (idEnvio: string, status: string, valor: string) => ({
      endToEndId: `E99999999${'2'.repeat(23)}`,
      chave: SANDBOX_PIX_KEY,
      tipo: 'SOLICITACAO',
      status,
      valor,
      horario: new Date().toISOString(),
      gnExtras: {
        idEnvio,
        ...(status === 'NAO_REALIZADO' ? { erro: { codigo: 'AC03', origem: 'x', motivo: 'forjado' } } : {}),
      },
    });
    const answer = await fetch(bed.service.callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        pix: [forged(held.id_envio, 'REALIZADO', '9.05'), forged(paidRow.id_envio, 'NAO_REALIZADO', '9.06')],
      }),
    });
    // The callback is answered once every item is handled.
    expect(answer.status).toBe(200);
    expect(await settledEvents(request.payout_id)).toEqual([]);
    expect(await payoutRow(request.payout_id)).toMatchObject({ status: 'requested', end_to_end_id: null });
    expect(await settledEvents(stored.payout_id)).toEqual([paid]);
    expect(await payoutRow(stored.payout_id)).toMatchObject({ status: 'paid' });

    psp.faults.clear();
    const event = await settled(request.payout_id);
    expect(event.outcome).toBe('paid');
    expect(event.end_to_end_id).not.toBe(forged(held.id_envio, 'REALIZADO', '9.05').endToEndId);
    expect(await sends.readSentPix(held.id_envio)).toMatchObject({ endToEndId: event.end_to_end_id });
  });

  test('a payer key the PSP will not send from holds the payout (never failed), counted and logged, until fixed', async () => {
    const request = aPayoutRequested({ amount_centavos: 907 });
    const heldBefore = await heldAttempts('payer_misconfigured');
    psp.faults.inject({
      fault: {
        kind: 'answer',
        status: 400,
        body: {
          nome: 'webhook_nao_encontrado',
          mensagem: 'A chave do pagador não tem webhook associado, necessário para o envio de Pix',
        },
      },
      count: 1000,
      method: 'PUT',
    });
    await bed.client.publish(payoutRequested, request);
    const held = await waitFor(
      async () => {
        const row = await payoutRow(request.payout_id);
        return row !== undefined && row.attempts >= 2 ? row : undefined;
      },
      { what: 'the payout held twice for the payer key' },
    );
    expect(held).toMatchObject({ status: 'requested', held_reason: 'payer_misconfigured' });
    expect(await heldAttempts('payer_misconfigured')).toBeGreaterThanOrEqual(heldBefore + 2);
    expect(await settledEvents(request.payout_id)).toEqual([]);

    psp.faults.clear();
    expect((await settled(request.payout_id)).outcome).toBe('paid');
    expect(putsOf(held.id_envio)).toBeGreaterThanOrEqual(3);
    expect(await sends.readSentPix(held.id_envio)).toMatchObject({ amountCentavos: 907 });
  });

  test('another send found under the idEnvio of the payout holds the payout for review: never failed, never sent again', async () => {
    const request = aPayoutRequested({ amount_centavos: 910 });
    const heldBefore = await heldAttempts('conflict');
    const idEnvio = idEnvioOf(request.payout_id, (text) => createHash('sha256').update(text).digest());
    // Money already left under this idEnvio, for another amount (another system on the same account, a bug).
    await sends.sendPix({
      idEnvio,
      amountCentavos: 911,
      payerKey: SANDBOX_PIX_KEY,
      destination: { pixKey: request.destination.pix_key },
    });
    await bed.client.publish(payoutRequested, request);

    const held = await waitFor(
      async () => {
        const row = await payoutRow(request.payout_id);
        return row?.held_reason === 'conflict' ? row : undefined;
      },
      { what: 'the payout held for a conflicting send' },
    );
    expect(held).toMatchObject({ status: 'requested', id_envio: idEnvio, end_to_end_id: null });
    expect(await heldAttempts('conflict')).toBeGreaterThan(heldBefore);
    expect(await settledEvents(request.payout_id)).toEqual([]);
    expect(await sends.readSentPix(idEnvio)).toMatchObject({ amountCentavos: 911 });
  });

  test('a malformed payout request is parked at once, never retried, and nothing is stored or sent', async () => {
    const request = aPayoutRequested();
    const parked = await publishAndAwaitParking(
      bed.client,
      bed.env.config,
      'pix-adapter',
      'events',
      poisonedEnvelope(payoutRequested, request, { amount_centavos: 'muito' }),
    );
    expect(parked).toEqual([
      expect.objectContaining({
        type: payoutRequested.name,
        reason: expect.stringMatching(/^InvalidMessageError: .*amount_centavos/),
      }),
    ]);
    expect(await payoutRow(request.payout_id)).toBeUndefined();
    expect(await takeParkedMessages(eventsParkingQueue(bed))).toEqual([]);

    await bed.client.publish(payoutRequested, request);
    expect((await settled(request.payout_id)).outcome).toBe('paid');
  });

  test('after losing its broker connection the adapter still carries payouts out', async () => {
    bed.service.broker.dropConnectionForTesting();
    const request = aPayoutRequested({ amount_centavos: 908 });
    await bed.client.publish(payoutRequested, request);
    expect((await settled(request.payout_id, 15_000)).outcome).toBe('paid');
    expect((await storedPayout(request.payout_id)).status).toBe('paid');
  });
});
