import type { CreateAdjustment } from '@gateway/contracts';
import {
  adjustmentPosting,
  adjustmentRequest,
  debitRefusal,
  isRefusal,
  isSameAdjustment,
  type AdjustmentRequest,
} from '../src/domain/adjustment';
import { journalSum } from '../src/domain/posting-rules';

const command = (fields: Partial<CreateAdjustment> & { amount_centavos: number }): CreateAdjustment => ({
  reason: '  Tarifa do PSP  ',
  requested_by: 'admin token',
  ...fields,
});

function accepted(fields: Partial<CreateAdjustment> & { amount_centavos: number }): AdjustmentRequest {
  const request = adjustmentRequest(command(fields));
  if (isRefusal(request)) throw new Error(`refused: ${request.message}`);
  return request;
}

const at = new Date('2026-11-29T12:00:00Z');

describe('the adjustment posting rule', () => {
  test('a business credit debits the counter account and credits available, with an available balance transaction', () => {
    const posting = adjustmentPosting(accepted({ business_id: 'biz_x', amount_centavos: 250 }), 'adj_1', at);
    expect(posting).toMatchObject({
      causeKey: 'adjustment:adj_1',
      kind: 'adjustment',
      businessId: 'biz_x',
      railReference: null,
      lines: [
        { account: 'platform_adjustments', businessId: null, amountCentavos: 250 },
        { account: 'available', businessId: 'biz_x', amountCentavos: -250 },
      ],
      deltas: { available: 250, pending: 0, reserved: 0, blocked: 0 },
      balanceTransaction: {
        type: 'adjustment',
        sourceId: 'adj_1',
        amountCentavos: 250,
        feeCentavos: 0,
        netCentavos: 250,
        status: 'available',
        availableOn: at,
        occurredAt: at,
        description: 'Tarifa do PSP',
      },
    });
  });

  test('a business debit credits the counter account, and its balance transaction is negative', () => {
    const posting = adjustmentPosting(
      accepted({ business_id: 'biz_x', amount_centavos: -90, counter_account: 'fee_revenue' }),
      'adj_2',
      at,
    );
    expect(posting.lines).toEqual([
      { account: 'available', businessId: 'biz_x', amountCentavos: 90 },
      { account: 'fee_revenue', businessId: null, amountCentavos: -90 },
    ]);
    expect('balanceTransaction' in posting && posting.balanceTransaction?.netCentavos).toBe(-90);
  });

  test('a platform adjustment is a platform journal between its two accounts, summing to zero', () => {
    const posting = adjustmentPosting(
      accepted({ amount_centavos: 125, debit_account: 'psp_fees', credit_account: 'cash_psp' }),
      'adj_3',
      at,
    );
    expect(posting).toEqual({
      causeKey: 'adjustment:adj_3',
      kind: 'adjustment',
      businessId: null,
      railReference: null,
      lines: [
        { account: 'psp_fees', businessId: null, amountCentavos: 125 },
        { account: 'cash_psp', businessId: null, amountCentavos: -125 },
      ],
    });
    expect(journalSum(posting.lines)).toBe(0);
  });

  test('a debit over available is refused unless a negative balance is allowed; a credit never is', () => {
    expect(debitRefusal(accepted({ business_id: 'biz_x', amount_centavos: -100 }), 100)).toBeNull();
    expect(debitRefusal(accepted({ business_id: 'biz_x', amount_centavos: -101 }), 100)).toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    expect(
      debitRefusal(
        accepted({ business_id: 'biz_x', amount_centavos: -101, allow_negative_available: true }),
        100,
      ),
    ).toBeNull();
    expect(debitRefusal(accepted({ business_id: 'biz_x', amount_centavos: 500 }), -1_000)).toBeNull();
  });

  test('the same request is the same adjustment; another amount or reason is not', () => {
    const request = accepted({ business_id: 'biz_x', amount_centavos: 10 });
    const stored = {
      adjustment_id: 'adj_4',
      kind: 'business' as const,
      business_id: 'biz_x',
      amount_centavos: 10,
      debit_account: 'platform_adjustments',
      credit_account: 'available',
      allow_negative_available: false,
      reason: 'Tarifa do PSP',
      requested_by: 'admin token',
      journal_id: '1',
      balance_transaction_id: 'btx_1',
      created_at: at.toISOString(),
    };
    expect(isSameAdjustment(stored, request)).toBe(true);
    expect(isSameAdjustment({ ...stored, amount_centavos: 11 }, request)).toBe(false);
    expect(isSameAdjustment({ ...stored, reason: 'outra' }, request)).toBe(false);
  });
});
