import { randomBytes } from 'node:crypto';
import { newPublicId, type PixMedReported } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { SANDBOX_PIX_KEY } from '../src/config';
import { generateTxid } from '../src/domain/txid';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  type AdapterBed,
  anOpenPixCharge,
  chargeBecomes,
  openCharge,
  simulateOutcome,
  startAdapterAgainstSandboxPsp,
} from './support/adapter';

describe('MED: devoluções the payer’s bank raised, reported to the payment service once per status', () => {
  let bed: AdapterBed;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, payer } = await startAdapterAgainstSandboxPsp('pix-adapter-med', () => ({
      DEVOLUCAO_OVERDUE_SECONDS: '1',
      CALLBACK_POLL_INTERVAL_MS: '200',
    })));
  });

  afterAll(() => bed.close());

  async function paidPayment(amount = 2500): Promise<{ paymentId: string; endToEndId: string }> {
    const { txid, payment_id: paymentId } = await openCharge(
      bed,
      anOpenPixCharge({ amount_centavos: amount }),
    );
    await payer.sandboxPay(txid, null);
    const paid = await chargeBecomes(bed, txid, 'paid');
    return { paymentId, endToEndId: paid.paid_end_to_end_id! };
  }

  const reports = async (paymentId: string): Promise<PixMedReported[]> =>
    (
      await bed.service.dataSource.query(
        `SELECT envelope->'payload' AS payload FROM outbox
          WHERE name = 'pix.med.reported.v1' AND envelope->'payload'->>'payment_id' = $1 ORDER BY seq`,
        [paymentId],
      )
    ).map((row: { payload: PixMedReported }) => row.payload);

  const reportsBecome = (paymentId: string, statuses: string[], timeoutMs = 10_000) =>
    waitFor(
      async () => {
        const told = await reports(paymentId);
        return told.map((med) => med.status).join() === statuses.join() ? told : undefined;
      },
      { what: `MED reports ${statuses.join()} for ${paymentId}`, timeoutMs },
    );

  const accepted = async (reply: Awaited<ReturnType<typeof simulateOutcome>>) => {
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  };

  test('disputed raises a MED through the PSP’s callback (once, the command sent twice); dispute_lost ends it DEVOLVIDO', async () => {
    const payment = await paidPayment(2500);
    const messageId = newPublicId('msg');
    await accepted(await simulateOutcome(bed, payment.paymentId, 'disputed', 1000, { messageId }));
    await accepted(await simulateOutcome(bed, payment.paymentId, 'disputed', 1000, { messageId }));
    const [opened] = await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO']);
    expect(opened).toEqual({
      payment_id: payment.paymentId,
      end_to_end_id: payment.endToEndId,
      devolucao_id: expect.stringMatching(/^[a-zA-Z0-9]{35}$/),
      amount_centavos: 1000,
      natureza: 'MED_FRAUDE',
      status: 'EM_PROCESSAMENTO',
      motivo: null,
    });
    expect((await payer.getReceivedPix(payment.endToEndId)).devolucoes).toHaveLength(1);

    await accepted(await simulateOutcome(bed, payment.paymentId, 'dispute_lost'));
    const [, lost] = await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO', 'DEVOLVIDO']);
    expect(lost).toMatchObject({
      devolucao_id: opened!.devolucao_id,
      status: 'DEVOLVIDO',
      amount_centavos: 1000,
    });
    // Nothing open is left to end.
    expect(await simulateOutcome(bed, payment.paymentId, 'dispute_won')).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS' },
    });
  });

  test('dispute_won ends the MED NAO_REALIZADO with the PSP’s reason; a MED past the Pix is refused', async () => {
    const payment = await paidPayment(2500);
    expect(await simulateOutcome(bed, payment.paymentId, 'disputed', 2501)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_AMOUNT' },
    });
    await accepted(await simulateOutcome(bed, payment.paymentId, 'disputed'));
    await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO']);
    await accepted(await simulateOutcome(bed, payment.paymentId, 'dispute_won'));
    const [, won] = await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO', 'NAO_REALIZADO']);
    expect(won).toMatchObject({ amount_centavos: 2500, status: 'NAO_REALIZADO', motivo: expect.any(String) });
  });

  test('when the MED’s closing callback is lost, the devolução poll reads its end', async () => {
    const payment = await paidPayment(2500);
    await accepted(await simulateOutcome(bed, payment.paymentId, 'disputed'));
    const [opened] = await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO']);
    await payer.registerWebhook(SANDBOX_PIX_KEY, 'http://127.0.0.1:9');
    try {
      await payer.sandboxEndMed(payment.endToEndId, opened!.devolucao_id, 'DEVOLVIDO');
      await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO', 'DEVOLVIDO'], 15_000);
    } finally {
      await payer.registerWebhook(SANDBOX_PIX_KEY, bed.service.callbackUrl);
    }
  });

  /** Makes a sweep of the MED window due now and waits for the overdue-callback pass to read the window whole. */
  async function sweepOnce(): Promise<void> {
    const [[{ marked }]] = await bed.service.dataSource.query(
      `UPDATE received_pix_poll SET med_swept_at = '-infinity' RETURNING clock_timestamp() AS marked`,
    );
    await waitFor(
      async () =>
        (
          await bed.service.dataSource.query(`SELECT 1 FROM received_pix_poll WHERE med_swept_at > $1`, [
            marked,
          ])
        ).length === 1,
      { what: 'a sweep of the MED window read whole' },
    );
  }

  test('when the MED’s first callback is lost, the pass’s sweep of the Pix in the MED window finds it', async () => {
    const payment = await paidPayment(2500);
    await payer.registerWebhook(SANDBOX_PIX_KEY, 'http://127.0.0.1:9');
    try {
      await payer.sandboxRaiseMed(payment.endToEndId, 'MedSemCallback1', 700);
    } finally {
      await payer.registerWebhook(SANDBOX_PIX_KEY, bed.service.callbackUrl);
    }
    expect(await reports(payment.paymentId)).toEqual([]);
    await sweepOnce();
    const [found] = await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO']);
    expect(found).toMatchObject({ devolucao_id: 'MedSemCallback1', amount_centavos: 700 });
    // Swept again: nothing new to tell.
    await sweepOnce();
    expect(await reports(payment.paymentId)).toHaveLength(1);
  });

  test('a MED on a Pix of no charge of ours is reported to nobody; a repeated callback tells nothing twice', async () => {
    const txid = generateTxid(randomBytes);
    await payer.createCharge(txid, { expiracaoSeconds: 3600, valorCentavos: 900, chave: SANDBOX_PIX_KEY });
    await payer.sandboxPay(txid, null);
    const [pix] = (await payer.getCharge(txid)).pix!;
    await payer.sandboxRaiseMed(pix!.endToEndId, 'MedDeNinguem1', null);
    await waitFor(
      async () =>
        (
          await bed.service.dataSource.query(
            `SELECT 1 FROM callbacks_received WHERE txid = $1 AND outcome = 'unknown_txid'`,
            [txid],
          )
        ).length >= 2,
      { what: 'the payment and MED callbacks of an unknown txid handled' },
    );
    const told = await bed.service.dataSource.query(
      `SELECT 1 FROM outbox WHERE name = 'pix.med.reported.v1' AND envelope->'payload'->>'end_to_end_id' = $1`,
      [pix!.endToEndId],
    );
    expect(told).toEqual([]);
    // The same MED called back again (a PSP retry): still one report for a known payment.
    const payment = await paidPayment(1500);
    await accepted(await simulateOutcome(bed, payment.paymentId, 'disputed'));
    const [opened] = await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO']);
    await payer.sandboxRaiseMed(payment.endToEndId, opened!.devolucao_id, null);
    await payer.sandboxEndMed(payment.endToEndId, opened!.devolucao_id, 'NAO_REALIZADO');
    await reportsBecome(payment.paymentId, ['EM_PROCESSAMENTO', 'NAO_REALIZADO']);
  });
});
