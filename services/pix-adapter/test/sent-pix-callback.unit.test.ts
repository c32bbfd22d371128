import {
  normalisePixKey,
  parseSentPixCallback,
  payerMisconfigurationOf,
  payoutRefusalOf,
  sendDifferences,
} from '../src/clients/psp/envio';
import { PspError, pspErrorFromResponse } from '../src/clients/psp/psp-error';

// The examples of Efí's "Recebendo Callbacks" (https://dev.efipay.com.br/docs/api-pix/webhooks/), "Envio" tab.
const made = {
  endToEndId: 'E090893562021030PIf25a7868',
  chave: '2c3c7441-b91e-4982-3c25-6105581e18ae',
  tipo: 'SOLICITACAO',
  status: 'REALIZADO',
  valor: '0.01',
  horario: '2021-03-04T20:39:47.000Z',
  gnExtras: { idEnvio: '123ABC' },
};
const refused = {
  endToEndId: 'E090893562021030PIf25a7868',
  chave: '2c3c7441-b91e-4982-3c25-6105581e18ae',
  tipo: 'SOLICITACAO',
  status: 'NAO_REALIZADO',
  valor: '0.01',
  horario: null,
  infoPagador: '0123456789',
  gnExtras: {
    idEnvio: '123ABC',
    erro: {
      codigo: 'AC03',
      origem: 'PSP do usuário recebedor',
      motivo: 'Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido',
    },
  },
};
const received = {
  endToEndId: 'E1803615022211340s08793XPJ',
  txid: 'fc9a43k6ff384ryP5f41719',
  chave: '2c3c7441-b91e-4982-3c25-6105581e18ae',
  valor: '0.01',
  horario: '2020-12-21T13:40:34.000Z',
};

describe('parseSentPixCallback', () => {
  test("reads Efí's documented callbacks of a send made and of one refused, skipping received Pix beside them", () => {
    expect(parseSentPixCallback({ pix: [made, received, refused] })).toEqual({
      sent: [
        {
          idEnvio: '123ABC',
          endToEndId: made.endToEndId,
          amountCentavos: 1,
          status: 'REALIZADO',
          settledAt: '2021-03-04T20:39:47.000Z',
        },
        {
          idEnvio: '123ABC',
          endToEndId: refused.endToEndId,
          amountCentavos: 1,
          status: 'NAO_REALIZADO',
          failure: { code: 'AC03', origin: 'PSP do usuário recebedor', reason: refused.gnExtras.erro.motivo },
        },
      ],
      rejected: [],
    });
  });

  test('a malformed send is rejected alone, and a body that is no callback tells so', () => {
    const result = parseSentPixCallback({ pix: [{ ...made, valor: 1 }, made] });
    expect(result.sent).toHaveLength(1);
    expect(result.rejected).toEqual([expect.stringContaining('valor')]);
    expect(parseSentPixCallback({ nothing: true }).rejected).toHaveLength(1);
    expect(parseSentPixCallback('x').sent).toEqual([]);
  });
});

describe('payerMisconfigurationOf', () => {
  test("tells the account's own set-up (payer key not the account's, no webhook on it) from a bad destination", () => {
    const payerKey = pspErrorFromResponse(
      400,
      { nome: 'chave_invalida', mensagem: 'A chave informada não faz referência à conta Efí autenticada' },
      undefined,
    );
    const noWebhook = pspErrorFromResponse(
      400,
      { nome: 'webhook_nao_encontrado', mensagem: 'A chave do pagador não tem webhook associado' },
      undefined,
    );
    const destination = pspErrorFromResponse(
      400,
      { nome: 'chave_invalida', mensagem: 'A chave do favorecido não é uma chave Pix válida' },
      undefined,
    );
    expect(payerMisconfigurationOf(payerKey)).toMatchObject({ reason: 'payer_misconfigured' });
    expect(payerMisconfigurationOf(noWebhook)).toMatchObject({ reason: 'payer_misconfigured' });
    expect(payoutRefusalOf(payerKey)).toBeUndefined();
    expect(payoutRefusalOf(noWebhook)).toBeUndefined();
    expect(payerMisconfigurationOf(destination)).toBeUndefined();
    expect(payoutRefusalOf(destination)?.reason).toBe('invalid_key');
  });
});

describe('payoutRefusalOf', () => {
  test("names Efí's refusals of a send, which fail again, and leaves what may pass to a retry or a read", () => {
    const refusal = (status: number, nome: string) =>
      payoutRefusalOf(pspErrorFromResponse(status, { nome, mensagem: 'm' }, undefined))?.reason;
    expect(refusal(422, 'saldo_insuficiente')).toBe('insufficient_balance');
    expect(refusal(400, 'chave_invalida')).toBe('invalid_key');
    expect(
      payoutRefusalOf(
        pspErrorFromResponse(
          400,
          { nome: 'chave_invalida', mensagem: 'A chave do favorecido não é uma chave Pix válida' },
          undefined,
        ),
      )?.reason,
    ).toBe('invalid_key');
    expect(refusal(400, 'chave_nao_pertence_ao_documento')).toBe('key_holder_mismatch');
    expect(refusal(422, 'pagamento_negado')).toBe('denied');
    expect(refusal(400, 'documento_bloqueado')).toBe('account_blocked');
    // A used idEnvio means money may have left: never a refusal ("nothing was sent").
    expect(refusal(409, 'id_envio_duplicado')).toBeUndefined();
    expect(refusal(404, 'x')).toBeUndefined();
    expect(refusal(400, 'json_invalido')).toBe('invalid_request');
    expect(refusal(500, 'erro_aplicacao')).toBeUndefined();
    expect(refusal(503, 'x')).toBeUndefined();
    expect(refusal(429, 'x')).toBeUndefined();
    expect(refusal(401, 'x')).toBeUndefined();
    expect(payoutRefusalOf(new PspError('unavailable', null, 'timeout'))).toBeUndefined();
    expect(payoutRefusalOf(new Error('bug'))).toBeUndefined();
  });
});

describe('normalisePixKey', () => {
  test('compares keys as DICT does: trimmed, case-insensitive, a CPF, CNPJ or phone by its digits', () => {
    expect(normalisePixKey(' Fornecedor@Example.COM ')).toBe(normalisePixKey('fornecedor@example.com'));
    expect(normalisePixKey('123.456.789-09')).toBe(normalisePixKey('12345678909'));
    expect(normalisePixKey('11.222.333/0001-81')).toBe(normalisePixKey('11222333000181'));
    expect(normalisePixKey('+55 (31) 99999-8888')).toBe(normalisePixKey('+5531999998888'));
    expect(normalisePixKey('7D9F0335-8DCC-4054-9BF9-0DBD61D36906')).toBe(
      normalisePixKey('7d9f0335-8dcc-4054-9bf9-0dbd61d36906'),
    );
    expect(normalisePixKey('a@example.com')).not.toBe(normalisePixKey('b@example.com'));
    expect(normalisePixKey('12345678909')).not.toBe(normalisePixKey('12345678900'));
  });
});

describe('sendDifferences: whether the send the PSP holds under an idEnvio is the payout asked for under it', () => {
  const held = {
    idEnvio: 'V2qp4lUPlgckB2j8t1v4Psktlvdv6JsknIj',
    endToEndId: 'E99999999202611300415GtQz1zRGEUd',
    amountCentavos: 911,
    status: 'REALIZADO' as const,
    destinationKey: '123.456.789-09',
  };

  test('the same amount to the same key (written another way) is that send', () => {
    expect(sendDifferences({ amountCentavos: 911, pixKey: '12345678909' }, held)).toBeUndefined();
  });

  test('another amount, another key or bank account data is another send, told in words', () => {
    expect(sendDifferences({ amountCentavos: 910, pixKey: '12345678909' }, held)).toBe(
      'amount 911 centavos, not 910',
    );
    expect(sendDifferences({ amountCentavos: 911, pixKey: 'outra@exemplo.com.br' }, held)).toBe(
      'sent to another Pix key',
    );
    expect(
      sendDifferences(
        { amountCentavos: 910, pixKey: '12345678909' },
        { ...held, destinationKey: undefined, destinationBankAccount: true },
      ),
    ).toBe('amount 911 centavos, not 910; sent to bank account data, not to a Pix key');
  });
});
