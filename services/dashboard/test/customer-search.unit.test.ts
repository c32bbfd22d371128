import { customerSearch } from '../src/domain/customer-search';

describe('the Clientes search box', () => {
  test('blank is no search', () => {
    expect(customerSearch('   ')).toEqual({ kind: 'none' });
  });

  test('an id is a customer id, trimmed', () => {
    expect(customerSearch(' cust_abc ')).toEqual({ kind: 'id', id: 'cust_abc' });
  });

  test('text with an @ is an e-mail address, trimmed and otherwise as typed', () => {
    expect(customerSearch(' Maria@Loja.example ')).toEqual({ kind: 'email', email: 'Maria@Loja.example' });
  });
});
