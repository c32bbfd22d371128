import { chargeDebtorOf } from '../src/domain/charge-debtor';

describe('the debtor a PIX charge names for a customer', () => {
  it('is the customer with a name and a CPF or a CNPJ (digits or, since 2026, letters)', () => {
    expect(chargeDebtorOf({ name: 'Maria Souza', document_number: '52998224725' })).toEqual({
      name: 'Maria Souza',
      document: '52998224725',
    });
    expect(chargeDebtorOf({ name: 'Padaria Ltda', document_number: '12ABC34501DE35' })).toEqual({
      name: 'Padaria Ltda',
      document: '12ABC34501DE35',
    });
  });

  it.each([
    [{ name: null, document_number: '52998224725' }],
    [{ name: 'Maria Souza', document_number: null }],
    [{ name: 'Maria Souza', document_number: '529.982.247-25' }],
    [{ name: 'Maria Souza', document_number: '1234' }],
  ])('is none for %j: the charge is then payable by anyone, as without a customer', (customer) => {
    expect(chargeDebtorOf(customer)).toBeNull();
  });
});
