import { attributeInstruction, type NamedRequest } from '../src/domain/attribution';

const request = (paymentId: string, reference: string, status = 'open'): NamedRequest => ({
  paymentId,
  reference,
  status,
});

describe('attributeInstruction', () => {
  test('an instruction naming one payment goes to it', () => {
    const a = request('pay_a', 'refA');
    expect(attributeInstruction([a])).toEqual({ kind: 'request', request: a });
  });

  test('one naming two payments (of any status) goes to neither', () => {
    const a = request('pay_a', 'refA');
    const b = request('pay_b', 'refB', 'expired');
    expect(attributeInstruction([a, b])).toEqual({ kind: 'ambiguous', requests: [a, b] });
  });

  test("one naming a payment's replaced and current references goes to its open request", () => {
    const replaced = request('pay_a', 'old', 'superseded');
    const current = request('pay_a', 'new');
    expect(attributeInstruction([replaced, current])).toEqual({ kind: 'request', request: current });
    expect(attributeInstruction([current, replaced])).toEqual({ kind: 'request', request: current });
  });
});
