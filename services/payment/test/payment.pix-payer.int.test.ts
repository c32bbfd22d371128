import { createPayment, newPublicId, type PaymentView } from '@gateway/contracts';
import { SANDBOX_PIX_KEY } from '@gateway/pix-adapter/src/config';
import { cobAtPsp, payAtPsp, withoutPspCallbacks } from '@gateway/testkit';
import { waitForPaymentStatus } from './support/harness';
import { paymentWithPixRailForTheseTests } from './support/real-pix-rail';

/** Who paid, as the PSP simulator reports it and the payment keeps it (payment service + PIX adapter + PSP). */
describe('the payer of a PIX, from the PSP to the payment record', () => {
  const bed = paymentWithPixRailForTheseTests('pix-payer');

  /** A new PIX payment of a new business (its fee rule: the sandbox default). */
  async function openPix(): Promise<{ businessId: string; view: PaymentView }> {
    const businessId = newPublicId('biz');
    const reply = await bed.request(
      createPayment,
      {
        business_id: businessId,
        business_name: 'Padaria São João',
        method: 'pix',
        amount_centavos: 10000,
        metadata: null,
        token: null,
      },
      { timeoutMs: 8000 },
    );
    if (!reply.ok) throw new Error(`create failed: ${JSON.stringify(reply.error)}`);
    return { businessId, view: reply.result };
  }

  async function paidWith(payer: { pagador?: unknown; infoPagador?: string }): Promise<PaymentView> {
    const { businessId, view } = await openPix();
    const paid = await payAtPsp(bed.pspUrl, view.payment.external_id!, undefined, payer);
    expect(paid.status).toBe(200);
    return waitForPaymentStatus(bed, businessId, view.payment.payment_id, 'paid');
  }

  /** Every stored column and outgoing message of the payment, as text: where a whole document must never be. */
  async function everythingKeptAbout(paymentId: string): Promise<string> {
    const rows: unknown[] = await bed.service.dataSource.query(
      `SELECT to_jsonb(p) AS payment,
              (SELECT jsonb_agg(envelope) FROM outbox WHERE envelope::text LIKE '%' || p.id || '%') AS events
         FROM payments p WHERE id = $1`,
      [paymentId],
    );
    const adapter: unknown[] = await bed.adapter.dataSource.query(
      `SELECT jsonb_agg(envelope) AS events FROM outbox WHERE envelope::text LIKE '%' || $1 || '%'`,
      [paymentId],
    );
    return JSON.stringify([rows, adapter]);
  }

  test('an open payment has no payer; paid by the sandbox payer, it shows their name and masked CPF, kept nowhere whole', async () => {
    const { businessId, view } = await openPix();
    expect(view.payment).toMatchObject({ payer: null, fee_centavos: 99, expires_at: view.pix!.expires_at });
    await payAtPsp(bed.pspUrl, view.payment.external_id!, undefined, { infoPagador: 'Pedido 1001' });
    const paid = await waitForPaymentStatus(bed, businessId, view.payment.payment_id, 'paid');
    expect(paid.payment.payer).toEqual({ name: 'Fulana Pagadora de Tal', document_masked: '***.456.789-**' });
    const kept = await everythingKeptAbout(view.payment.payment_id);
    expect(kept).toContain('***.456.789-**');
    expect(kept).not.toContain('12345678909');
    expect(kept).not.toContain('Pedido 1001');
  });

  test.each([
    [
      'a CNPJ, formatted',
      { pagador: { cnpj: '11.222.333/0001-81', nome: 'Mercado Bom Preço Ltda' } },
      { name: 'Mercado Bom Preço Ltda', document_masked: '**.222.333/0001-**' },
    ],
    [
      'an alphanumeric CNPJ',
      { pagador: { cnpj: '12ABC34501DE35', nome: 'Loja Nova' } },
      { name: 'Loja Nova', document_masked: '**.ABC.345/01DE-**' },
    ],
    ['a PSP that reports nobody', { pagador: null }, null],
    [
      'a name with NUL and bidi characters, and a CPF of non-digits',
      { pagador: { cpf: 'abc.def.ghi-jk', nome: 'Ana\u0000 \u202eMaria' } },
      { name: 'Ana Maria', document_masked: null },
    ],
    [
      'a huge name and a CPF with a NUL',
      { pagador: { cpf: '123456\u000078909', nome: 'N'.repeat(60_000) } },
      { name: 'N'.repeat(200), document_masked: null },
    ],
    ['a payer that is not an object', { pagador: 'Maria 12345678909' }, null],
    [
      'a name of 300 emoji (600 UTF-16 units)',
      { pagador: { cpf: '12345678909', nome: '😀'.repeat(300) } },
      { name: '😀'.repeat(100), document_masked: '***.456.789-**' },
    ],
  ])('paid with %s, the payment is paid and shows what could be read', async (_case, payer, expected) => {
    const paid = await paidWith(payer);
    expect(paid.payment.payer).toEqual(expected);
  });

  test("a hand-crafted callback's payer is not believed: the payer is the one the PSP's own read of the cob lists", async () => {
    const restoreCallbacks = await withoutPspCallbacks(bed.pspUrl, SANDBOX_PIX_KEY);
    try {
      const forged = { cpf: '98765432100', nome: 'Mallory' };
      for (const itemPayer of [{ pagador: forged, infoPagador: 'pague para mim' }, {}]) {
        const { businessId, view } = await openPix();
        const txid = view.payment.external_id!;
        const real = { cnpj: '11222333000181', nome: 'Padaria Real Ltda' };
        expect((await payAtPsp(bed.pspUrl, txid, undefined, { pagador: real })).status).toBe(200);
        const cob = (await cobAtPsp(bed.pspUrl, txid)) as { pix?: Array<Record<string, string>> };
        const listed = cob.pix![0]!;
        const item = {
          endToEndId: listed.endToEndId,
          txid,
          valor: listed.valor,
          horario: listed.horario,
          ...itemPayer,
        };
        const answer = await fetch(bed.adapter.callbackUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pix: [item] }),
        });
        expect(answer.status).toBe(200);
        const paid = await waitForPaymentStatus(bed, businessId, view.payment.payment_id, 'paid');
        expect(paid.payment.payer).toEqual({
          name: 'Padaria Real Ltda',
          document_masked: '**.222.333/0001-**',
        });
        expect(await everythingKeptAbout(view.payment.payment_id)).not.toContain('Mallory');
      }
    } finally {
      await restoreCallbacks();
    }
  });
});
