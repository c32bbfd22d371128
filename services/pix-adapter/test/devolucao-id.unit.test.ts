import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { DEVOLUCAO_ID_PATTERN, devolucaoIdOf } from '../src/domain/devolucao-id';

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const refundIds = fc.stringMatching(/^[A-Za-z0-9_-]{24,64}$/).map((suffix) => `ref_${suffix}`);

describe('devolucaoIdOf', () => {
  test('is an API Pix DevolucaoId of 35 alphanumerics, whatever the refund id holds', () => {
    fc.assert(
      fc.property(refundIds, (refundId) => {
        const id = devolucaoIdOf(refundId, sha256);
        expect(id).toMatch(DEVOLUCAO_ID_PATTERN);
        expect(id).toHaveLength(35);
      }),
    );
  });

  test('is the same for the same refund and differs between refunds that differ only by _ and -', () => {
    const refundId = 'ref_a-b_c0123456789abcdefghijk';
    expect(devolucaoIdOf(refundId, sha256)).toBe(devolucaoIdOf(refundId, sha256));
    expect(devolucaoIdOf(refundId, sha256)).not.toBe(devolucaoIdOf(refundId.replace('-', '_'), sha256));
  });
});
