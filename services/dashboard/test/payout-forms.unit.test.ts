import {
  isStatementMonth,
  monthLabel,
  monthOf,
  pixKeyHint,
  readPayoutAccountForm,
  readPayoutAmount,
} from '../src/domain/payout-forms';
import { roleAllows, roles } from '../src/domain/roles';

describe('the money forms under Saldo', () => {
  test('a statement month is YYYY-MM', () => {
    expect(isStatementMonth('2026-11')).toBe(true);
    expect(isStatementMonth('2026-13')).toBe(false);
    expect(isStatementMonth('2026-00')).toBe(false);
    expect(isStatementMonth('1999-12')).toBe(false);
    expect(isStatementMonth('2026-1')).toBe(false);
    expect(isStatementMonth('2026-11-01')).toBe(false);
    expect(isStatementMonth('../x')).toBe(false);
    expect(monthOf(new Date('2026-11-30T23:59:59Z'))).toBe('2026-11');
    expect(monthLabel('2026-11')).toBe('novembro de 2026');
  });

  test('a payout amount: blank is all available, else centavos; anything else is refused', () => {
    expect(readPayoutAmount('')).toEqual({});
    expect(readPayoutAmount('  ')).toEqual({});
    expect(readPayoutAmount('1.234,56')).toEqual({ amount: 123456 });
    expect(readPayoutAmount('R$ 10')).toEqual({ amount: 1000 });
    expect(readPayoutAmount('0')).toBeNull();
    expect(readPayoutAmount('-5')).toBeNull();
    expect(readPayoutAmount('dez')).toBeNull();
  });

  test('the payout account form: documents as digits, the type one of the five, each field present', () => {
    expect(
      readPayoutAccountForm({
        pix_key: '12.345.678/0001-95',
        pix_key_type: 'cnpj',
        holder_document: '12.345.678/0001-95',
      }),
    ).toEqual({
      ok: true,
      value: { pix_key: '12345678000195', pix_key_type: 'cnpj', holder_document: '12345678000195' },
    });
    expect(
      readPayoutAccountForm({
        pix_key: '+55 (11) 98765-4321',
        pix_key_type: 'phone',
        holder_document: '123.456.789-09',
      }),
    ).toEqual({
      ok: true,
      value: { pix_key: '+5511987654321', pix_key_type: 'phone', holder_document: '12345678909' },
    });
    expect(
      readPayoutAccountForm({ pix_key: 'a@b.c', pix_key_type: 'bitcoin', holder_document: '1' }),
    ).toMatchObject({
      ok: false,
    });
    expect(readPayoutAccountForm({ pix_key: '', pix_key_type: 'email', holder_document: '1' })).toMatchObject(
      {
        ok: false,
      },
    );
    expect(readPayoutAccountForm({ pix_key: 'a@b.c', pix_key_type: 'email' })).toMatchObject({ ok: false });
    expect(
      readPayoutAccountForm({ pix_key: ['a'], pix_key_type: 'email', holder_document: '1' }),
    ).toMatchObject({
      ok: false,
    });
    expect(pixKeyHint('12345678000195')).toBe('•••• 0195');
  });

  test('only the owner sets the payout account; owner and admin request payouts; developer and viewer read', () => {
    expect(roles.filter((role) => roleAllows(role, 'payout_account:write'))).toEqual(['owner']);
    expect(roles.filter((role) => roleAllows(role, 'payouts:write'))).toEqual(['owner', 'admin']);
    expect(roles.filter((role) => roleAllows(role, 'payouts:read'))).toEqual(roles);
  });
});
