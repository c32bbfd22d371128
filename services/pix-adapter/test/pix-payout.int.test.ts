import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createPspSimulator } from '@gateway/psp-simulator';
import { pspBooksForThisFile } from '@gateway/psp-simulator/test/support/books';
import { startCallbackReceiver } from '@gateway/psp-simulator/test/support/callback-receiver';
import { createLogger } from '@gateway/observability';
import { closeAfterEachTest, waitFor } from '@gateway/testkit';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  PayoutConflict,
  PixPayoutPort,
  type SendPixInput,
  type SentPix,
  parseSentPixCallback,
  payerMisconfigurationOf,
  payoutRefusalOf,
} from '../src/clients/psp/envio';
import { PspError } from '../src/clients/psp/psp-error';
import { idEnvioOf } from '../src/domain/id-envio';
import { generateTxid } from '../src/domain/txid';

const CREDENTIALS = { clientId: 'payout-client', clientSecret: 'payout-secret' };
const silent = createLogger('pix-payout-test', 'silent');
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();
const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * A simulated Efí account with a webhook on its key (Efí requires one to send) and `creditCentavos` received into it
 * through paid cobs; answers the payout port on it, and what its webhook received.
 */
async function account(...creditsCentavos: number[]) {
  const pixKey = randomUUID();
  const psp = await createPspSimulator({
    databaseUrl: booksUrl(),
    ...CREDENTIALS,
    pixKey,
    logger: silent,
    callbackRetryDelaysMs: [50, 100],
    envioSettleMs: 30,
  }).start(0);
  afterThisTest(psp.close);
  const hook = await startCallbackReceiver();
  afterThisTest(hook.close);
  const apiPix = new ApiPixClient(
    {
      baseUrl: psp.url,
      pathPrefix: '/v2',
      oauthTokenUrl: `${psp.url}/oauth/token`,
      ...CREDENTIALS,
      timeoutMs: 2000,
      maxRetries: 2,
    },
    { retryBaseDelayMs: 5, logger: silent },
  );
  afterThisTest(() => apiPix.close());
  await apiPix.registerWebhook(pixKey, hook.url);
  for (const centavos of creditsCentavos) {
    const txid = generateTxid(randomBytes);
    await apiPix.createCharge(txid, { expiracaoSeconds: 3600, valorCentavos: centavos, chave: pixKey });
    await apiPix.sandboxPay(txid, null);
  }
  const port = new PixPayoutPort(
    {
      baseUrl: psp.url,
      oauthTokenUrl: `${psp.url}/oauth/token`,
      ...CREDENTIALS,
      timeoutMs: 2000,
      maxRetries: 2,
    },
    { retryBaseDelayMs: 5, logger: silent },
  );
  afterThisTest(() => port.close());
  /** The sends the webhook was told of, parsed as the adapter reads them. */
  const toldSends = (): SentPix[] =>
    hook.bodies.flatMap((body) => parseSentPixCallback(JSON.parse(body)).sent);
  /** Hands the port every callback heard so far, as the adapter's callback handler does. */
  const learn = (): void => {
    for (const body of hook.bodies) port.learnFromCallback(JSON.parse(body));
  };
  return { psp, pixKey, port, apiPix, toldSends, learn };
}

const payout = (
  payerKey: string,
  amountCentavos: number,
  pixKey = 'fornecedor@example.com',
): SendPixInput => ({
  idEnvio: idEnvioOf(`po_${randomUUID()}`, sha256),
  amountCentavos,
  payerKey,
  destination: { pixKey },
});

async function settled(port: PixPayoutPort, idEnvio: string): Promise<SentPix> {
  let current: SentPix | undefined;
  await waitFor(async () => {
    current = await port.readSentPix(idEnvio);
    return current !== undefined && current.status !== 'EM_PROCESSAMENTO';
  });
  return current!;
}

async function rejection(promise: Promise<unknown>): Promise<PspError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PspError)) throw new Error(`expected a PspError, got ${String(error)}`);
  return error;
}

describe('the payout port (Efí envio de Pix) against the PSP simulator', () => {
  it('sends a Pix, reads it back REALIZADO, hears it by callback, and the balance pays for it', async () => {
    const { port, pixKey, toldSends } = await account(10000);
    const input = { ...payout(pixKey, 3050), message: 'Repasse de novembro' };

    const accepted = await port.sendPix(input);

    expect(accepted).toMatchObject({
      idEnvio: input.idEnvio,
      amountCentavos: 3050,
      status: 'EM_PROCESSAMENTO',
      destinationKey: 'fornecedor@example.com',
    });
    expect(accepted.endToEndId).toMatch(/^E[a-zA-Z0-9]{31}$/);
    const read = await settled(port, input.idEnvio);
    expect(read).toMatchObject({
      idEnvio: input.idEnvio,
      endToEndId: accepted.endToEndId,
      amountCentavos: 3050,
      status: 'REALIZADO',
      destinationKey: 'fornecedor@example.com',
    });
    expect(read.settledAt).toEqual(expect.any(String));
    expect(read.failure).toBeUndefined();
    await waitFor(() => toldSends().length === 1);
    expect(toldSends()[0]).toMatchObject({
      idEnvio: input.idEnvio,
      status: 'REALIZADO',
      amountCentavos: 3050,
    });
    expect(await port.readBalance()).toBe(10000 - 3050);
  });

  it('the same idEnvio sent twice, or retried after a lost answer, sends once and debits the balance once', async () => {
    const { psp, port, pixKey, toldSends } = await account(5000);
    const input = payout(pixKey, 1200);

    const first = await port.sendPix(input);
    const again = await port.sendPix(input);
    expect(again.endToEndId).toBe(first.endToEndId);

    const lost = payout(pixKey, 800);
    const puts = () => psp.faults.requestsSeen('PUT', new RegExp(`^/v3/gn/pix/${lost.idEnvio}$`));
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PUT', path: /^\/v3\/gn\/pix\// });
    const afterLoss = await port.sendPix(lost);
    expect(afterLoss).toMatchObject({ idEnvio: lost.idEnvio, amountCentavos: 800 });
    // The fault fired: the first PUT was carried out and its answer lost, the second met it.
    expect(puts()).toBe(2);

    await settled(port, input.idEnvio);
    await settled(port, lost.idEnvio);
    expect(await port.readBalance()).toBe(5000 - 1200 - 800);
    await waitFor(() => toldSends().length === 2);
    expect(
      toldSends()
        .map((sent) => sent.idEnvio)
        .sort(),
    ).toEqual([input.idEnvio, lost.idEnvio].sort());
  });

  it('an idEnvio already used for another send is a conflict carrying that send, never a refusal', async () => {
    const { port, pixKey } = await account(5000);
    const input = payout(pixKey, 1000);
    const first = await port.sendPix(input);

    const error = await port.sendPix({ ...input, amountCentavos: 2000 }).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(PayoutConflict);
    expect((error as PayoutConflict).existing).toMatchObject({
      idEnvio: input.idEnvio,
      endToEndId: first.endToEndId,
      amountCentavos: 1000,
    });
    // "Nothing was sent" would be false: money left under this idEnvio.
    expect(payoutRefusalOf(error)).toBeUndefined();
    expect((await settled(port, input.idEnvio)).amountCentavos).toBe(1000);
    expect(await port.readBalance()).toBe(4000);
  });

  it('a retry naming the destination key in another case or format meets the same send', async () => {
    const { port, pixKey } = await account(5000);
    const input = payout(pixKey, 700, 'fornecedor@example.com');
    const first = await port.sendPix(input);

    const again = await port.sendPix({
      ...input,
      destination: { pixKey: ' Fornecedor@EXAMPLE.com ' },
    });

    expect(again.endToEndId).toBe(first.endToEndId);
    expect(await port.readBalance()).toBe(4300);
  });

  it('a 409 whose send cannot be read yet is unknown (retry), never a refusal', async () => {
    const { psp, port, pixKey } = await account(5000);
    const input = payout(pixKey, 900);
    psp.faults.inject({
      fault: {
        kind: 'answer',
        status: 409,
        body: {
          nome: 'id_envio_duplicado',
          mensagem: 'O id de envio informado já foi utilizado em outro pagamento',
        },
      },
      count: 1,
      method: 'PUT',
    });

    const unknown = await rejection(port.sendPix(input));

    expect(unknown.retryable).toBe(true);
    expect(payoutRefusalOf(unknown)).toBeUndefined();
    // Retried later, it sends (once).
    await port.sendPix(input);
    expect(await port.readBalance()).toBe(4100);
  });

  it('a refusal answering a retry whose first send was carried out (saldo_insuficiente) is read back: the send stands', async () => {
    const { psp, port, pixKey } = await account(1000);
    const input = payout(pixKey, 800);
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PUT', path: /^\/v3\/gn\/pix\// });
    // The retry finds the money gone (the first send took it) and the PSP answers 422 saldo_insuficiente.
    psp.faults.inject({
      fault: {
        kind: 'answer',
        status: 422,
        body: {
          nome: 'saldo_insuficiente',
          mensagem: 'O saldo em conta é insuficiente para efetuar esta transação',
        },
      },
      count: 1,
      method: 'PUT',
    });

    const sent = await port.sendPix(input);

    expect(psp.faults.requestsSeen('PUT', new RegExp(`^/v3/gn/pix/${input.idEnvio}$`))).toBe(2);
    expect(sent).toMatchObject({ idEnvio: input.idEnvio, amountCentavos: 800 });
    expect(await port.readBalance()).toBe(200);
  });

  it('a refusal after a lost answer that differs from the send made is a conflict, never a refusal', async () => {
    const { psp, port, pixKey } = await account(1000);
    const input = payout(pixKey, 800);
    await port.sendPix(input);
    psp.faults.inject({
      fault: {
        kind: 'answer',
        status: 422,
        body: { nome: 'pagamento_negado', mensagem: 'Pagamento negado por análises' },
      },
      count: 1,
      method: 'PUT',
    });

    const error = await port.sendPix({ ...input, amountCentavos: 900 }).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(PayoutConflict);
    expect(payoutRefusalOf(error)).toBeUndefined();
  });

  it('checks its input before sending: a formatted CPF, a long or NUL message, an amount out of range send nothing', async () => {
    const { psp, port, pixKey } = await account(5000);
    const base = payout(pixKey, 100, '12345678909');
    const bad: SendPixInput[] = [
      { ...base, destination: { pixKey: '12345678909', holderDocument: '123.456.789-09' } },
      { ...base, destination: { pixKey: '12345678909', holderDocument: '1234567890' } },
      { ...base, message: 'x'.repeat(141) },
      { ...base, message: 'a\u0000b' },
      { ...base, amountCentavos: 0 },
      { ...base, amountCentavos: 1_000_000_000_000 },
      { ...base, amountCentavos: 1.5 },
    ];
    for (const input of bad) await expect(port.sendPix(input)).rejects.toThrow(Error);
    expect(psp.faults.requestsSeen('PUT', /^\/v3\/gn\/pix\//)).toBe(0);
    await port.sendPix({ ...base, message: 'y'.repeat(140) });
    expect(await port.readBalance()).toBe(4900);
  });

  it('an answer to a send naming another idEnvio or amount is unusable: the send is read back instead', async () => {
    const { psp, port, pixKey } = await account(5000);
    const input = payout(pixKey, 600);
    psp.faults.inject({
      fault: {
        kind: 'answer',
        status: 201,
        body: {
          idEnvio: input.idEnvio,
          e2eId: `E${'1'.repeat(31)}`,
          valor: '60.00',
          horario: { solicitacao: new Date().toISOString() },
          status: 'EM_PROCESSAMENTO',
        },
      },
      count: 1,
      method: 'PUT',
    });

    // Nothing was sent under it (the answer was about something else): unknown, to be retried, never taken.
    const unknown = await rejection(port.sendPix(input));
    expect(unknown.retryable).toBe(true);
    const sent = await port.sendPix(input);
    expect(sent).toMatchObject({ idEnvio: input.idEnvio, amountCentavos: 600 });
    expect(sent.endToEndId).not.toBe(`E${'1'.repeat(31)}`);
  });

  it('a payout larger than the balance is refused as Efí refuses it, and nothing is sent', async () => {
    const { port, pixKey } = await account(2000);
    const input = payout(pixKey, 2001);

    const error = await rejection(port.sendPix(input));

    expect(error).toMatchObject({ kind: 'invalid', status: 422, extra: { name: 'saldo_insuficiente' } });
    expect(payoutRefusalOf(error)).toEqual({ reason: 'insufficient_balance', detail: expect.any(String) });
    expect(await port.readSentPix(input.idEnvio)).toBeUndefined();
    expect(await port.readBalance()).toBe(2000);
    // The whole balance can go.
    await port.sendPix({ ...input, amountCentavos: 2000 });
    expect(await port.readBalance()).toBe(0);
  });

  it('a simulator rule fails a payout: NAO_REALIZADO by read, its reason by callback (kept by the port), and the money comes back', async () => {
    const { psp, port, pixKey, toldSends, learn } = await account(5000);
    psp.envioRules.fail({
      chave: 'conta-encerrada@example.com',
      failure: { motivo: 'Conta do recebedor encerrada' },
    });
    const failing = payout(pixKey, 1500, 'conta-encerrada@example.com');
    const fine = payout(pixKey, 500);

    await port.sendPix(failing);
    await port.sendPix(fine);

    const read = await settled(port, failing.idEnvio);
    // Efí's read tells the status only.
    expect(read).toMatchObject({ status: 'NAO_REALIZADO' });
    expect(read.failure).toBeUndefined();
    expect(read.settledAt).toBeUndefined();
    expect((await settled(port, fine.idEnvio)).status).toBe('REALIZADO');
    await waitFor(() => toldSends().length === 2);
    expect(toldSends().find((sent) => sent.idEnvio === failing.idEnvio)).toMatchObject({
      status: 'NAO_REALIZADO',
      failure: { code: 'AC03', reason: 'Conta do recebedor encerrada' },
    });
    learn();
    expect(await port.readSentPix(failing.idEnvio)).toMatchObject({
      status: 'NAO_REALIZADO',
      failure: { code: 'AC03', origin: 'PSP do usuário recebedor', reason: 'Conta do recebedor encerrada' },
    });
    expect(await port.readBalance()).toBe(5000 - 500);
  });

  it('a rule by amount fails only sends of that amount, as many times as it says', async () => {
    const { psp, port, pixKey, toldSends, learn } = await account(10000);
    psp.envioRules.fail({ valor: '13.13', count: 1, failure: { codigo: 'AM18', motivo: 'Limite excedido' } });
    const first = payout(pixKey, 1313);
    const second = payout(pixKey, 1313);

    await port.sendPix(first);
    await port.sendPix(second);

    expect((await settled(port, first.idEnvio)).status).toBe('NAO_REALIZADO');
    expect((await settled(port, second.idEnvio)).status).toBe('REALIZADO');
    await waitFor(() => toldSends().length === 2);
    learn();
    expect(await port.readSentPix(first.idEnvio)).toMatchObject({ failure: { code: 'AM18' } });
  });

  it('the balance is what the paid cobs brought in, less the devoluções and payouts', async () => {
    const { port, pixKey, apiPix } = await account(1000, 550);
    expect(await port.readBalance()).toBe(1550);
    const txid = generateTxid(randomBytes);
    await apiPix.createCharge(txid, { expiracaoSeconds: 3600, valorCentavos: 2000, chave: pixKey });
    await apiPix.sandboxPay(txid, null);
    const paid = await apiPix.getCharge(txid);
    await apiPix.requestDevolucao(paid.pix![0]!.endToEndId, 'dev1', { valorCentavos: 300 });
    expect(await port.readBalance()).toBe(3550 - 300);

    const sent = payout(pixKey, 325);
    await port.sendPix(sent);
    expect(await port.readBalance()).toBe(3250 - 325);
    await settled(port, sent.idEnvio);
    expect(await port.readBalance()).toBe(2925);
  });

  it('tells refusals that will fail again (invalid key, key of another holder) from failures that may pass', async () => {
    const { psp, port, pixKey } = await account(5000);

    const invalidKey = await rejection(port.sendPix(payout(pixKey, 100, 'não é uma chave')));
    expect(payoutRefusalOf(invalidKey)).toMatchObject({ reason: 'invalid_key' });
    // The account's own set-up is wrong, not the payout: held and retried with an alert, never refused.
    const notOurs = await rejection(port.sendPix(payout(randomUUID(), 100)));
    expect(payoutRefusalOf(notOurs)).toBeUndefined();
    expect(payerMisconfigurationOf(notOurs)).toMatchObject({ reason: 'payer_misconfigured' });
    expect(payerMisconfigurationOf(invalidKey)).toBeUndefined();

    const otherHolder = await rejection(
      port.sendPix({
        ...payout(pixKey, 100, '12345678909'),
        destination: { pixKey: '12345678909', holderDocument: '98765432100' },
      }),
    );
    expect(payoutRefusalOf(otherHolder)).toMatchObject({ reason: 'key_holder_mismatch' });
    const sameHolder = payout(pixKey, 100, '12345678909');
    await port.sendPix({
      ...sameHolder,
      destination: { pixKey: '12345678909', holderDocument: '12345678909' },
    });

    psp.faults.inject({ fault: { kind: 'server-error', status: 500 }, count: 3, method: 'PUT' });
    const down = payout(pixKey, 100);
    const unavailable = await rejection(port.sendPix(down));
    expect(unavailable.retryable).toBe(true);
    expect(payoutRefusalOf(unavailable)).toBeUndefined();
    // The state of a send whose outcome is unknown is read, and sending it again is safe.
    expect(await port.readSentPix(down.idEnvio)).toBeUndefined();
    await port.sendPix(down);
    expect(await port.readBalance()).toBe(5000 - 100 - 100);
  });
});
