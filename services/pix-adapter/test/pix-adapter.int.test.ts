import { hasError, isDynamicPix, parsePix } from 'pix-utils';
import { changePixChargeAmount, newPublicId, openPixCharge, simulatePixOutcome } from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import { fetchPayload } from '@gateway/psp-simulator/test/support/payload-location';
import {
  connectTestClient,
  poisonCase,
  untilAnsweredOk,
  waitFor,
  waitForParkedMessages,
} from '@gateway/testkit';
import { loadPixAdapterConfig } from '../src/config';
import { startPixAdapter } from '../src/main';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  type AdapterBed,
  anOpenPixCharge,
  chargeBecomes,
  eventsAbout,
  openCharge,
  simulateOutcome,
  startAdapterAgainstSandboxPsp,
  storedCharge,
} from './support/adapter';

describe('PIX adapter against the PSP simulator', () => {
  let bed: AdapterBed;
  let psp: RunningPspSimulator;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, psp, payer } = await startAdapterAgainstSandboxPsp('pix-adapter', () => ({
      EXPIRY_SWEEP_INTERVAL_MS: '200',
    })));
  });

  afterAll(() => bed.close());

  const postCallback = (url: string, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  describe('pix.charge.open.v1', () => {
    test('opens a cob and answers a valid dynamic BR Code for its location with a PNG QR of it', async () => {
      const opened = await openCharge(bed);
      const parsed = parsePix(opened.copia_e_cola);
      expect(hasError(parsed)).toBe(false);
      expect(opened.copia_e_cola).toContain(new URL(psp.url).host);
      expect(opened.qr_code).toMatch(/^data:image\/png;base64,iVBOR/);
      expect(await storedCharge(bed, opened.txid)).toMatchObject({
        status: 'active',
        revisao: 0,
        amount: 2500,
      });
    });

    test("names the payment's debtor and shows its description to the payer, as the cob at the PSP keeps them", async () => {
      const person = await openCharge(
        bed,
        anOpenPixCharge({
          description: 'Pedido 1001: 2 pães de queijo',
          debtor: { name: 'Maria Souza', document: '52998224725' },
        }),
      );
      expect(await payer.getCharge(person.txid)).toMatchObject({
        devedor: { cpf: '52998224725', nome: 'Maria Souza' },
        solicitacaoPagador: 'Pedido 1001: 2 pães de queijo',
      });
      const company = await openCharge(
        bed,
        anOpenPixCharge({ debtor: { name: 'Padaria Pão Quente Ltda', document: '12ABC34501DE35' } }),
      );
      const cob = await payer.getCharge(company.txid);
      expect(cob).toMatchObject({ devedor: { cnpj: '12ABC34501DE35', nome: 'Padaria Pão Quente Ltda' } });
      expect(cob).not.toHaveProperty('solicitacaoPagador');
      // Without either, the cob is as it always was: payable by anyone, nothing asked of the payer.
      const plain = await payer.getCharge((await openCharge(bed)).txid);
      expect(plain).not.toHaveProperty('devedor');
      expect(plain).not.toHaveProperty('solicitacaoPagador');
    });

    test('a debtor the PSP refuses does not cost the sale: the charge opens without one', async () => {
      psp.faults.inject({
        fault: {
          kind: 'answer',
          status: 400,
          body: {
            type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
            title: 'Cobrança inválida.',
            status: 400,
            violacoes: [
              { razao: 'CPF 52998224725 inválido na base da Receita.', propriedade: 'cob.devedor.cpf' },
            ],
          },
        },
        count: 1,
        method: 'PUT',
        path: /\/cob\//,
      });
      const opened = await openCharge(
        bed,
        anOpenPixCharge({ debtor: { name: 'Maria Souza', document: '52998224725' } }),
      );

      const cob = await payer.getCharge(opened.txid);
      expect(cob.status).toBe('ATIVA');
      expect(cob).not.toHaveProperty('devedor');
    });

    test('when the same open is delivered twice, one cob is opened and both replies match', async () => {
      const command = anOpenPixCharge();
      const messageId = newPublicId('cmd');
      const first = await openCharge(bed, command, { messageId });
      const second = await openCharge(bed, command, { messageId });
      const other = await openCharge(bed, command);
      expect(second).toEqual(first);
      expect(other).toEqual(first);
      const rows = await bed.service.dataSource.query('SELECT txid FROM charges WHERE payment_id = $1', [
        command.payment_id,
      ]);
      expect(rows).toHaveLength(1);
    });
  });

  describe('pix.charge.change-amount.v1', () => {
    test('a new amount moves the cob to a new location with a new code and QR, once per command; a paid charge refuses', async () => {
      const command = anOpenPixCharge();
      const opened = await openCharge(bed, command);
      const messageId = newPublicId('cmd');
      const change = { payment_id: command.payment_id, amount_centavos: 3000 };
      const first = await bed.request(changePixChargeAmount, change, { timeoutMs: 8000, messageId });
      const second = await bed.request(changePixChargeAmount, change, { timeoutMs: 8000, messageId });
      if (!first.ok) throw new Error(JSON.stringify(first.error));
      expect(second).toEqual(first);
      expect(first.result.txid).toBe(opened.txid);
      expect(first.result.copia_e_cola).not.toBe(opened.copia_e_cola);
      expect(first.result.qr_code).toMatch(/^data:image\/png;base64,iVBOR/);
      expect(first.result.qr_code).not.toBe(opened.qr_code);

      // parsePix checks the CRC, so a parsed code is an intact one.
      const oldCode = parsePix(opened.copia_e_cola);
      const code = parsePix(first.result.copia_e_cola);
      if (hasError(oldCode) || !isDynamicPix(oldCode)) throw new Error('old code is not a dynamic BR Code');
      if (hasError(code) || !isDynamicPix(code)) throw new Error('new code is not a dynamic BR Code');
      expect(code.url).not.toBe(oldCode.url);
      const payload = await fetchPayload(code.url);
      expect(payload).toMatchObject({ txid: opened.txid, revisao: 1, valor: { original: '30.00' } });
      // The old code no longer leads the payer's bank to this charge.
      expect((await fetch(`http://${oldCode.url}`)).status).toBe(404);
      expect(await storedCharge(bed, opened.txid)).toMatchObject({ revisao: 1, amount: 3000 });
      const [stored] = await bed.service.dataSource.query(
        'SELECT location, copia_e_cola, qr_code FROM charges WHERE txid = $1',
        [opened.txid],
      );
      expect(stored).toEqual({
        location: code.url,
        copia_e_cola: first.result.copia_e_cola,
        qr_code: first.result.qr_code,
      });

      await simulateOutcome(bed, command.payment_id, 'paid');
      await chargeBecomes(bed, opened.txid, 'paid');
      const refused = await bed.request(
        changePixChargeAmount,
        { payment_id: command.payment_id, amount_centavos: 5000 },
        { timeoutMs: 8000 },
      );
      expect(refused).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_STATUS' }) });
    });
  });

  describe('pix.charge.simulate.v1', () => {
    test('paid makes the PSP pay and call back; a redelivered simulate does not pay twice', async () => {
      const command = anOpenPixCharge();
      const opened = await openCharge(bed, command);
      const messageId = newPublicId('cmd');
      expect(await simulateOutcome(bed, command.payment_id, 'paid', null, { messageId })).toEqual({
        ok: true,
        result: { accepted: true },
      });
      await simulateOutcome(bed, command.payment_id, 'paid', null, { messageId });
      // Both answered, so both handled: whatever they made the PSP do is done, and the PSP lists one PIX.
      expect((await payer.getCharge(opened.txid)).pix).toHaveLength(1);
      await chargeBecomes(bed, opened.txid, 'paid');
      expect(await eventsAbout(bed, opened.txid)).toEqual(['pix.charge.paid.v1']);
      const received = await bed.service.dataSource.query(
        'SELECT outcome FROM callbacks_received WHERE txid = $1',
        [opened.txid],
      );
      expect(received).toEqual([{ outcome: 'applied' }]);
    });

    /** The PSP pays, but however often the adapter asks, no answer comes back: the command fails, nothing is kept. */
    async function payWithEveryAnswerLost(paymentId: string, amount: number | null, messageId: string) {
      psp.faults.inject({
        fault: { kind: 'lost-answer' },
        count: 50,
        method: 'POST',
        path: /\/cob\/pagar\//,
      });
      try {
        const first = await simulateOutcome(bed, paymentId, 'paid', amount, { messageId, timeoutMs: 30_000 });
        expect(first).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
      } finally {
        psp.faults.clear();
      }
    }

    test('a simulate that made the PSP pay but was never answered is accepted when sent again, and pays once', async () => {
      const command = anOpenPixCharge({ amount_centavos: 2500 });
      const opened = await openCharge(bed, command);
      const messageId = newPublicId('cmd');
      // The charge is held so the PSP's callback cannot close it yet: the retry meets a charge still active here and
      // a cob the PSP concluded, which refuses the amount change that comes first for another amount.
      const holder = bed.service.dataSource.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      try {
        await holder.query('SELECT 1 FROM charges WHERE txid = $1 FOR UPDATE', [opened.txid]);
        await payWithEveryAnswerLost(command.payment_id, 2600, messageId);
        expect(await simulateOutcome(bed, command.payment_id, 'paid', 2600, { messageId })).toEqual({
          ok: true,
          result: { accepted: true },
        });
      } finally {
        await holder.rollbackTransaction();
        await holder.release();
      }
      const received = () =>
        bed.service.dataSource.query('SELECT outcome FROM callbacks_received WHERE txid = $1', [opened.txid]);
      // More than the charge's amount: the adapter records the Pix for the payment service to settle (wrong_amount).
      await waitFor(async () => ((await received()).length > 0 ? true : undefined), {
        what: "the PSP's callback (retried: its first attempt waited on the held charge)",
        timeoutMs: 25_000,
      });
      expect(await received()).toEqual([{ outcome: 'wrong_amount' }]);
      expect((await payer.getCharge(opened.txid)).pix).toHaveLength(1);
      // Its answer is kept now: sent once more, the same answer.
      expect(await simulateOutcome(bed, command.payment_id, 'paid', 2600, { messageId })).toEqual({
        ok: true,
        result: { accepted: true },
      });
      expect((await payer.getCharge(opened.txid)).pix).toHaveLength(1);
    });

    test('a simulate answered with nothing kept, once the PSP callback closed the charge, is accepted when sent again', async () => {
      const command = anOpenPixCharge({ amount_centavos: 2500 });
      const opened = await openCharge(bed, command);
      const messageId = newPublicId('cmd');
      await payWithEveryAnswerLost(command.payment_id, null, messageId);
      await chargeBecomes(bed, opened.txid, 'paid');
      expect(await simulateOutcome(bed, command.payment_id, 'paid', null, { messageId })).toEqual({
        ok: true,
        result: { accepted: true },
      });
      expect((await payer.getCharge(opened.txid)).pix).toHaveLength(1);
    });

    test('expired lets the sweeper close the charge; a PIX paid afterwards is kept in late_payments', async () => {
      const command = anOpenPixCharge();
      const opened = await openCharge(bed, command);
      await simulateOutcome(bed, command.payment_id, 'expired');
      await chargeBecomes(bed, opened.txid, 'expired');
      expect(await eventsAbout(bed, opened.txid)).toEqual(['pix.charge.closed.v1']);

      // The PSP's own window has not passed, so a payer can still pay: the PIX must be kept, not lost.
      await payer.sandboxPay(opened.txid, null);
      const late = await waitFor(
        async () =>
          (
            await bed.service.dataSource.query(
              'SELECT payment_id, amount_centavos::int AS amount, charge_status FROM late_payments WHERE txid = $1',
              [opened.txid],
            )
          )[0],
        { what: 'the late PIX recorded' },
      );
      expect(late).toEqual({ payment_id: command.payment_id, amount: 2500, charge_status: 'expired' });
      expect(await eventsAbout(bed, opened.txid)).toEqual(['pix.charge.closed.v1', 'pix.charge.paid.v1']);
    });

    test('when the window passes after a partial PIX, the closure is underpaid and lists that PIX', async () => {
      const command = anOpenPixCharge({ amount_centavos: 2500 });
      const opened = await openCharge(bed, command);
      expect((await simulateOutcome(bed, command.payment_id, 'paid', 1000)).ok).toBe(true);
      expect((await simulateOutcome(bed, command.payment_id, 'expired')).ok).toBe(true);
      await chargeBecomes(bed, opened.txid, 'expired');
      const [partial] = await bed.service.dataSource.query(
        `SELECT end_to_end_id FROM callbacks_received WHERE txid = $1 AND outcome = 'wrong_amount'`,
        [opened.txid],
      );
      const [closed] = await bed.service.dataSource.query(
        `SELECT envelope->'payload' AS payload FROM outbox WHERE name = 'pix.charge.closed.v1'
            AND envelope->'payload'->>'txid' = $1`,
        [opened.txid],
      );
      expect(closed.payload).toEqual({
        payment_id: command.payment_id,
        txid: opened.txid,
        reason: 'underpaid',
        detail: null,
        received_pix: [{ end_to_end_id: partial.end_to_end_id, amount_centavos: 1000 }],
      });
    });

    test('failed removes the cob at the PSP and closes the charge as failed', async () => {
      const command = anOpenPixCharge();
      const opened = await openCharge(bed, command);
      const reply = await simulateOutcome(bed, command.payment_id, 'failed');
      expect(reply.ok).toBe(true);
      expect(await storedCharge(bed, opened.txid)).toMatchObject({ status: 'failed' });
      expect(await eventsAbout(bed, opened.txid)).toEqual(['pix.charge.closed.v1']);
    });
  });

  describe('callback receiver', () => {
    test('refuses a callback without the right token, and records an unknown txid without paying anything', async () => {
      const item = {
        endToEndId: 'E12345678202501011200abcdefghijk',
        txid: 'unknownTxid00000000000000000000x',
        valor: '10.00',
        horario: new Date().toISOString(),
      };
      const wrongToken = bed.service.callbackUrl.replace(/token=[^&]+/, 'token=not-the-token');
      expect((await postCallback(wrongToken, { pix: [item] })).status).toBe(401);
      // A PSP that appends /pix to the whole URL puts it after the token.
      expect((await postCallback(`${bed.service.callbackUrl}/pix`, { pix: [item] })).status).toBe(200);
      const rows = await bed.service.dataSource.query(
        'SELECT outcome FROM callbacks_received WHERE txid = $1',
        [item.txid],
      );
      expect(rows).toEqual([{ outcome: 'unknown_txid' }]);
    });
  });

  const commands = [
    poisonCase(openPixCharge, anOpenPixCharge()),
    poisonCase(changePixChargeAmount, { payment_id: newPublicId('pay'), amount_centavos: 100 }),
    poisonCase(simulatePixOutcome, {
      payment_id: newPublicId('pay'),
      outcome: 'paid',
      amount_centavos: null,
    }),
  ];

  test.each(commands)('a poison %s command is parked and answered', async (_name, definition, payload) => {
    const envelope = createEnvelope(definition, payload);
    await bed.client.publishEnvelope({ ...envelope, payload: { ...payload, payment_id: 42 } }, {});
    const parked = await waitForParkedMessages(
      `${bed.env.config.AMQP_PREFIX}pix-adapter.commands.parking`,
      'the parked command',
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('payment_id') }),
    ]);
  });

  test('after losing its broker connection the adapter serves open, change and simulate again', async () => {
    bed.service.broker.dropConnectionForTesting();
    const command = anOpenPixCharge();
    const { result: opened } = await untilAnsweredOk(
      () =>
        bed.request(openPixCharge, command, {
          timeoutMs: 1500,
          messageId: `reconnect-${command.payment_id}`,
        }),
      'an open after reconnect',
    );
    const changed = await bed.request(
      changePixChargeAmount,
      { payment_id: command.payment_id, amount_centavos: 2600 },
      { timeoutMs: 8000 },
    );
    const simulated = await simulateOutcome(bed, command.payment_id, 'paid');
    expect([changed.ok, simulated.ok]).toEqual([true, true]);
    await chargeBecomes(bed, opened.txid, 'paid');
  });

  test('when the PSP cannot be reached, open answers SERVICE_UNAVAILABLE and stores no charge', async () => {
    const downConfig = loadPixAdapterConfig({
      ...bed.env.config,
      AMQP_PREFIX: `${bed.env.config.AMQP_PREFIX}down.`,
      PSP_BASE_URL: 'http://127.0.0.1:9',
      CALLBACK_PORT: '0',
      PSP_MAX_RETRIES: '0',
    });
    const down = await startPixAdapter(downConfig);
    const downClient = await connectTestClient(downConfig, 'pix-adapter-down-client');
    try {
      const command = anOpenPixCharge();
      const reply = await downClient.request(openPixCharge, command, { timeoutMs: 8000 });
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
      const rows = await down.dataSource.query('SELECT txid FROM charges WHERE payment_id = $1', [
        command.payment_id,
      ]);
      expect(rows).toEqual([]);
    } finally {
      // Its names deleted once nothing is connected: a connected broker whose queue goes declares it again.
      await downClient.close();
      await down.stop();
      await down.broker.deleteDeclaredTopology();
    }
  });
});
