import { createRefund, getRefund, publicRefundRecord } from '@gateway/contracts';
import { defineOperation, json } from '../src/http/operation';
import * as answers from '../src/http/openapi/response-schemas';

// The type checker is this file's judge (`pnpm run check` type-checks the tests): each `@ts-expect-error` below is an
// entry the table must refuse to compile, and fails the check the day the table accepts it.
const entry = {
  method: 'get' as const,
  path: '/v1/refunds/{refund_id}',
  operationId: 'getRefund' as const,
  tag: 'Refunds',
  area: 'api' as const,
  summary: 'Read a refund',
  params: { refund_id: 'ref' as const },
  commands: [getRefund] as const,
  answers: [json(200, 'The refund.', answers.refund)],
};

describe('an operation entry is typed by its own declaration', () => {
  it('lets its handler send the commands it lists and answer what its answer schema publishes', () => {
    const spec = defineOperation({
      ...entry,
      handle: async ({ params, businessId, send }) =>
        publicRefundRecord(await send(getRefund, { business_id: businessId, refund_id: params.refund_id })),
    });
    expect(spec.commands).toEqual([getRefund]);
  });

  it('refuses a handler that sends a command its entry does not list (its refusals would be undocumented)', () => {
    const spec = defineOperation({
      ...entry,
      handle: async ({ params, businessId, send }) => {
        const refund = await send(
          // @ts-expect-error createRefund is not among the entry's commands
          createRefund,
          { business_id: businessId, payment_id: params.refund_id, amount_centavos: null, reason: null },
        );
        return publicRefundRecord(refund);
      },
    });
    expect(spec.operationId).toBe('getRefund');
  });

  it('refuses a handler whose answer is not the one its schema publishes', () => {
    const spec = defineOperation({
      ...entry,
      // @ts-expect-error the answer is a refund record, not a bare id
      handle: async ({ params }) => ({ refund_id: params.refund_id }),
    });
    expect(spec.path).toBe('/v1/refunds/{refund_id}');
  });

  it('refuses a path parameter the entry does not declare', () => {
    const spec = defineOperation({
      ...entry,
      handle: async ({ params, businessId, send }) =>
        publicRefundRecord(
          // @ts-expect-error the entry's only path parameter is refund_id
          await send(getRefund, { business_id: businessId, refund_id: params.payment_id }),
        ),
    });
    expect(spec.method).toBe('get');
  });

  it('refuses a handler that sends through the route context instead of its own sender', () => {
    const spec = defineOperation({
      ...entry,
      handle: async ({ params, businessId, res }, context) =>
        publicRefundRecord(
          // @ts-expect-error the handler's context has no command channel: its commands go through `send`
          await context.commands.send(
            getRefund,
            { business_id: businessId, refund_id: params.refund_id },
            res,
          ),
        ),
    });
    expect(spec.tag).toBe('Refunds');
  });
});
