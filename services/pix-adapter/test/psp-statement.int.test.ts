import { randomUUID } from 'node:crypto';
import { getPspStatement, pixRefundRequested, type PspStatement } from '@gateway/contracts';
import { SANDBOX_PIX_KEY, SANDBOX_PSP_CLIENT } from '@gateway/config';
import { aRefundRequest, startedForTheseTests, waitFor } from '@gateway/testkit';
import { PixPayoutPort } from '../src/clients/psp/envio';
import { anOpenPixCharge, chargeBecomes, openCharge, startAdapterAgainstSandboxPsp } from './support/adapter';

/** An access token of the sandbox client, for reading the simulator's lists as any API Pix client would. */
async function sandboxToken(pspUrl: string): Promise<string> {
  const basic = Buffer.from(`${SANDBOX_PSP_CLIENT.id}:${SANDBOX_PSP_CLIENT.secret}`).toString('base64');
  const answer = await fetch(`${pspUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

describe('pix.psp-statement.get.v1: what the PSP says of a period', () => {
  const setup = startedForTheseTests(async () => {
    const started = await startAdapterAgainstSandboxPsp('pix-statement');
    // The operator's side of the account: one Pix sent from it (a payout), as Efí's envio does.
    const envio = new PixPayoutPort({
      baseUrl: started.psp.url,
      oauthTokenUrl: `${started.psp.url}/oauth/token`,
      clientId: SANDBOX_PSP_CLIENT.id,
      clientSecret: SANDBOX_PSP_CLIENT.secret,
      timeoutMs: 2000,
      maxRetries: 0,
    });
    const close = started.bed.close.bind(started.bed);
    return Object.assign(started.bed, {
      psp: started.psp,
      payer: started.payer,
      envio,
      close: async () => {
        await envio.close();
        await close();
      },
    });
  });

  const statement = async (from: Date, to: Date): Promise<PspStatement> => {
    const reply = await setup.request(
      getPspStatement,
      { from: from.toISOString(), to: to.toISOString() },
      { timeoutMs: 8000 },
    );
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  test('lists every Pix received with its devoluções, every Pix sent, and the balance they leave', async () => {
    const before = new Date(Date.now() - 1000);
    const charges = [];
    for (const amount of [2_500, 1_000, 730]) {
      const charge = await openCharge(setup, anOpenPixCharge({ amount_centavos: amount }));
      await setup.payer.sandboxPay(charge.txid, null);
      charges.push(charge);
    }
    const paid = await setup.payer.getCharge(charges[0]!.txid);
    const endToEndId = paid.pix![0]!.endToEndId;
    await setup.payer.requestDevolucao(endToEndId, 'devolucaoStatement1', { valorCentavos: 500 });
    const sent = await setup.envio.sendPix({
      idEnvio: 'envioStatement1',
      amountCentavos: 300,
      payerKey: SANDBOX_PIX_KEY,
      destination: { pixKey: randomUUID() },
    });

    const read = await statement(before, new Date(Date.now() + 1000));

    expect(read.received.map((pix) => [pix.txid, pix.amount_centavos])).toEqual(
      charges.map((charge, i) => [charge.txid, [2_500, 1_000, 730][i]]),
    );
    expect(read.received[0]).toMatchObject({ end_to_end_id: endToEndId, returns: [expect.any(Object)] });
    expect(read.received[0]!.returns[0]).toMatchObject({ id: 'devolucaoStatement1', amount_centavos: 500 });
    expect(read.sent).toEqual([
      expect.objectContaining({
        id_envio: 'envioStatement1',
        end_to_end_id: sent.endToEndId,
        amount_centavos: 300,
      }),
    ]);
    expect(read.balance_centavos).toBe(2_500 + 1_000 + 730 - 500 - 300);

    // A period before all of it lists nothing; the balance is the account's now, whatever the period.
    const earlier = await statement(
      new Date(before.getTime() - 3_600_000),
      new Date(before.getTime() - 60_000),
    );
    expect(earlier).toMatchObject({ received: [], sent: [], balance_centavos: read.balance_centavos });
  });

  test('a Pix received before the period whose devolução the adapter asked for in it is listed, with that devolução', async () => {
    const charge = await openCharge(setup, anOpenPixCharge({ amount_centavos: 4_000 }));
    await setup.payer.sandboxPay(charge.txid, null);
    const paid = await chargeBecomes(setup, charge.txid, 'paid');
    const periodStart = new Date(Date.now() + 1);
    await waitFor(() => Date.now() > periodStart.getTime(), {
      what: 'the period to start after the payment',
    });
    const request = aRefundRequest(
      { payment_id: charge.payment_id, amount_centavos: 4_000 },
      { amount_centavos: 1_500 },
    );
    await setup.client.publish(pixRefundRequested, request);
    await waitFor(
      async () =>
        (
          await setup.service.dataSource.query(
            `SELECT 1 FROM pix_refunds WHERE refund_id = $1 AND status = 'succeeded'`,
            [request.refund_id],
          )
        ).length === 1,
      { what: 'the devolução settled' },
    );

    const read = await statement(periodStart, new Date(Date.now() + 1000));

    const listed = read.received.filter((pix) => pix.end_to_end_id === paid.paid_end_to_end_id);
    expect(listed).toEqual([
      expect.objectContaining({
        txid: charge.txid,
        amount_centavos: 4_000,
        returns: [expect.objectContaining({ amount_centavos: 1_500, status: 'DEVOLVIDO' })],
      }),
    ]);
    expect(new Date(listed[0]!.paid_at).getTime()).toBeLessThan(periodStart.getTime());
  });

  test('the simulator pages GET /pix as API Pix says, and refuses a period that ends before it starts', async () => {
    const token = await sandboxToken(setup.psp.url);
    const inicio = new Date(Date.now() - 3_600_000).toISOString();
    const fim = new Date(Date.now() + 60_000).toISOString();
    const page = async (query: string) => {
      const answer = await fetch(`${setup.psp.url}/v2/pix?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return {
        status: answer.status,
        body: (await answer.json()) as { pix?: unknown[] } & Record<string, unknown>,
      };
    };
    const all = await page(new URLSearchParams({ inicio, fim }).toString());
    expect(all.status).toBe(200);
    const total = all.body.pix!.length;
    expect(total).toBeGreaterThanOrEqual(3);

    const second = await page(
      new URLSearchParams({
        inicio,
        fim,
        'paginacao.paginaAtual': '1',
        'paginacao.itensPorPagina': '2',
      }).toString(),
    );
    expect(second.body).toMatchObject({
      parametros: {
        paginacao: {
          paginaAtual: 1,
          itensPorPagina: 2,
          quantidadeDePaginas: Math.ceil(total / 2),
          quantidadeTotalDeItens: total,
        },
      },
    });
    expect(second.body.pix).toEqual(all.body.pix!.slice(2, 4));

    const backwards = await page(new URLSearchParams({ inicio: fim, fim: inicio }).toString());
    expect(backwards.status).toBe(400);
    expect(backwards.body).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/PixConsultaInvalida' });
    expect((await page('')).status).toBe(400);
    // Efí's list of sent Pix answers a bad query in Efí's own form.
    const sentList = await fetch(`${setup.psp.url}/v2/gn/pix/enviados?inicio=ontem`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(sentList.status).toBe(400);
    const efiError = (await sentList.json()) as { nome: string; erros: Array<{ caminho: string }> };
    expect(efiError.nome).toBe('json_invalido');
    expect(efiError.erros.map((erro) => erro.caminho)).toEqual(['.query.inicio', '.query.fim']);

    const refused = await setup.request(getPspStatement, { from: fim, to: inicio });
    expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_FIELDS' } });
  });
});
