import { parseCustomerInput } from '../src/domain/customer-input';

describe('parseCustomerInput', () => {
  it('when every field is absent or null, the customer is valid with every field null', () => {
    expect(parseCustomerInput({})).toEqual({
      ok: true,
      value: { name: null, email: null, phone_number: null, document_number: null, metadata: null },
    });
    expect(
      parseCustomerInput({ email: null, phone_number: null, document_number: null, metadata: null }).ok,
    ).toBe(true);
  });

  it('stores a valid body normalised: trimmed email with lower-case domain, E.164 phone, bare CPF digits', () => {
    const result = parseCustomerInput({
      email: '  Maria.Silva@Exemplo.COM.br ',
      phone_number: '(11) 91234-5678',
      document_number: '529.982.247-25',
      metadata: '{"crm_id":42}',
    });

    expect(result).toEqual({
      ok: true,
      value: {
        name: null,
        email: 'Maria.Silva@exemplo.com.br',
        phone_number: '+5511912345678',
        document_number: '52998224725',
        metadata: '{"crm_id":42}',
      },
    });
  });

  it.each([
    ['(11) 91234-5678', '+5511912345678'],
    ['11 3123-4567', '+551131234567'],
    ['+55 21 99876-5432', '+5521998765432'],
    ['5511912345678', '+5511912345678'],
    ['+1 (650) 253-0000', '+16502530000'],
    ['+351 912 345 678', '+351912345678'],
  ])('normalises the phone number %s to E.164 %s', (phone, e164) => {
    expect(parseCustomerInput({ phone_number: phone })).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ phone_number: e164 }) }),
    );
  });

  it.each(['12345', '(11) 1234-567', '+55 00 91234-5678', '11 91234-5678 ramal 2', 'telefone', ''])(
    'rejects the phone number %j',
    (phone) => {
      expect(parseCustomerInput({ phone_number: phone })).toEqual({
        ok: false,
        invalidFields: ['phone_number'],
      });
    },
  );

  it.each([
    ['a+tag@gmail.com', 'a+tag@gmail.com'],
    ['USER@EXAMPLE.ORG', 'USER@example.org'],
    ['nome@xn--caf-dma.com.br', 'nome@xn--caf-dma.com.br'],
  ])('accepts the email %s as %s', (email, stored) => {
    expect(parseCustomerInput({ email })).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ email: stored }) }),
    );
  });

  it.each([
    'plain',
    'a@b',
    'a@b..com',
    'a b@c.com',
    '.a@b.com',
    'a..b@c.com',
    'a@-b.com',
    'a@b.c',
    '@b.com',
    'a@b@c.com',
    '',
  ])('rejects the email %j', (email) => {
    expect(parseCustomerInput({ email })).toEqual({ ok: false, invalidFields: ['email'] });
  });

  it('rejects metadata that is not JSON text, including JSON given as an object instead of a string', () => {
    expect(parseCustomerInput({ metadata: '{crm_id: 42}' })).toEqual({
      ok: false,
      invalidFields: ['metadata'],
    });
    expect(parseCustomerInput({ metadata: { crm_id: 42 } })).toEqual({
      ok: false,
      invalidFields: ['metadata'],
    });
  });

  it('names every invalid field at once, including fields of the wrong type', () => {
    const result = parseCustomerInput({
      email: 42,
      phone_number: ['11912345678'],
      document_number: '529.982.247-26',
      metadata: '[]',
    });

    expect(result).toEqual({ ok: false, invalidFields: ['email', 'phone_number', 'document_number'] });
  });

  it('ignores fields that are not part of the create body', () => {
    const result = parseCustomerInput({ email: 'a@b.co', ip: '10.0.0.1', nickname: 'Maria' });

    expect(result).toEqual({
      ok: true,
      value: { name: null, email: 'a@b.co', phone_number: null, document_number: null, metadata: null },
    });
  });

  it.each([
    ['Maria da Silva', 'Maria da Silva'],
    ['  Maria \t da\n Silva  ', 'Maria da Silva'],
    ['Padaria Pão Quente Ltda', 'Padaria Pão Quente Ltda'],
  ])('keeps the name %j as %j', (name, stored) => {
    expect(parseCustomerInput({ name })).toMatchObject({ ok: true, value: { name: stored } });
  });

  it.each([
    [''],
    ['   '],
    ['Maria\u0000Silva'],
    ['Maria\u001bSilva'],
    ['Maria\u202eavliS'],
    ['x'.repeat(201)],
  ])('refuses the name %j', (name) => {
    expect(parseCustomerInput({ name })).toEqual({ ok: false, invalidFields: ['name'] });
  });
});
