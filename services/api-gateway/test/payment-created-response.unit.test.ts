import type { PaymentView } from '@gateway/contracts';
import { IncompletePaymentViewError, paymentCreatedResponse } from '../src/http/payment-responses';

/** A PIX payment as the payment service answers its create; `due` adds what a due-date charge answers. */
const created = (due: boolean): PaymentView =>
  ({
    payment: {
      payment_id: 'pay_due',
      method: 'pix',
      status: 'processing',
      amount_centavos: 45_000,
      fee_centavos: 450,
      customer_id: 'cus_1',
    },
    pix: {
      qr_code: 'data:image/png;base64,AAAA',
      copia_e_cola: '000201',
      expires_at: '2027-01-15T13:00:00.000Z',
      ...(due ? { due_date: '2027-02-10', payable_until: '2027-03-12' } : {}),
    },
  }) as unknown as PaymentView;

describe('the answer to POST /v1/payments', () => {
  it('answers a due-date charge with its due date and last payable day', () => {
    expect(paymentCreatedResponse(created(true), true)).toMatchObject({
      due_date: '2027-02-10',
      payable_until: '2027-03-12',
    });
  });

  it('never answers an immediate charge to a request with a due date (a service that ignored it)', () => {
    expect(() => paymentCreatedResponse(created(false), true)).toThrow(IncompletePaymentViewError);
    // Without one asked, the immediate charge it always was.
    expect(paymentCreatedResponse(created(false), false)).toMatchObject({
      expires_at: '2027-01-15T13:00:00.000Z',
    });
  });
});
