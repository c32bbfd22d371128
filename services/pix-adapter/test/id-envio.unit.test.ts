import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ID_ENVIO_PATTERN, idEnvioOf } from '../src/domain/id-envio';
import { devolucaoIdOf } from '../src/domain/devolucao-id';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

describe('idEnvioOf', () => {
  test('is an Efí idEnvio (35 of [a-zA-Z0-9]) whatever the payout id holds, even what Efí refuses (_ - . unicode)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200, unit: 'binary' }), (payoutId) => {
        const id = idEnvioOf(payoutId, sha256);
        expect(id).toMatch(ID_ENVIO_PATTERN);
        expect(id).toHaveLength(35);
      }),
    );
  });

  test('is the same for the same payout, every time, and differs for payouts that differ by one character', () => {
    const payoutId = 'po_2f8e-Ab_01';
    expect(idEnvioOf(payoutId, sha256)).toBe(idEnvioOf(payoutId, sha256));
    expect(idEnvioOf(payoutId, sha256)).not.toBe(idEnvioOf('po_2f8e_Ab_01', sha256));
    expect(idEnvioOf(payoutId, sha256)).not.toBe(idEnvioOf('po_2f8e-Ab_02', sha256));
  });

  test('never equals the devolução id of a refund of the same id (another namespace)', () => {
    expect(idEnvioOf('same_id', sha256)).not.toBe(devolucaoIdOf('same_id', sha256));
  });

  test('is pinned: a change of the derivation would resend every payout in flight', () => {
    expect(idEnvioOf('po_example', sha256)).toBe('cOqHTJZw7VJkJgckGMWl5D979kQEWsILChQ');
  });

  test('refuses an empty payout id', () => {
    expect(() => idEnvioOf('', sha256)).toThrow(/payout id/);
  });
});
