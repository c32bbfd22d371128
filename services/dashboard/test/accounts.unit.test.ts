import { randomBytes } from 'node:crypto';
import { apiKeyScopes } from '@gateway/contracts';
import { hashPassword, verifyPassword } from '../src/domain/password';
import { roleAllows, roles } from '../src/domain/roles';
import { readSignUpForm } from '../src/domain/sign-up-form';
import { sessionCookie } from '../src/http/session';

describe('passwords', () => {
  test('are stored as salted scrypt hashes that verify the password and nothing else', async () => {
    const stored = await hashPassword('uma senha comprida', randomBytes(16));
    expect(stored).toMatch(/^scrypt\$15\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored).not.toContain('uma senha comprida');
    expect(await verifyPassword('uma senha comprida', stored)).toBe(true);
    expect(await verifyPassword('uma senha comprida!', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
    // The same password, another salt: another hash.
    expect(await hashPassword('uma senha comprida', randomBytes(16))).not.toBe(stored);
  });

  test('a malformed stored value verifies nothing', async () => {
    for (const stored of ['', 'plain', 'scrypt$15$8$1$', 'bcrypt$x$y$z$a$b'])
      expect(await verifyPassword('anything', stored)).toBe(false);
  });
});

describe('roles', () => {
  test('a viewer reads everything and changes nothing', () => {
    for (const scope of apiKeyScopes) expect(roleAllows('viewer', scope)).toBe(scope.endsWith(':read'));
    expect(roleAllows('viewer', 'api_keys:write')).toBe(false);
    expect(roleAllows('viewer', 'team:write')).toBe(false);
  });

  test('a developer integrates but moves no money out', () => {
    expect(roleAllows('developer', 'webhooks:write')).toBe(true);
    expect(roleAllows('developer', 'api_keys:write')).toBe(true);
    expect(roleAllows('developer', 'refunds:write')).toBe(false);
    expect(roleAllows('developer', 'payouts:write')).toBe(false);
    expect(roleAllows('developer', 'team:write')).toBe(false);
  });

  test("only owners and admins change the business's settings", () => {
    expect(roles.filter((role) => roleAllows(role, 'business:write'))).toEqual(['owner', 'admin']);
  });

  test('owners and admins may do everything', () => {
    for (const role of ['owner', 'admin'] as const)
      for (const scope of [...apiKeyScopes, 'api_keys:write', 'team:write'] as const)
        expect(roleAllows(role, scope)).toBe(true);
    expect(roles).toEqual(['owner', 'admin', 'developer', 'viewer']);
  });
});

describe('the sign-up form', () => {
  test('reads a company name, a normalised e-mail address and a password', () => {
    expect(
      readSignUpForm({ company_name: '  Loja Açaí ', email: ' Dona@Loja.TEST ', password: 'dez caracteres' }),
    ).toEqual({
      ok: true,
      value: { companyName: 'Loja Açaí', email: 'dona@loja.test', password: 'dez caracteres' },
    });
  });

  test('names every field that is wrong, in Portuguese, and never echoes the password', () => {
    const read = readSignUpForm({ company_name: '', email: 'não é e-mail', password: 'curta' });
    expect(read).toEqual({
      ok: false,
      errors: {
        companyName: 'Informe o nome da empresa.',
        email: 'Informe um e-mail válido.',
        password: 'A senha precisa de pelo menos 10 caracteres.',
      },
      given: { companyName: '', email: 'não é e-mail' },
    });
    expect(readSignUpForm({ company_name: ['a'], email: 'a@b.c', password: 'x'.repeat(201) })).toMatchObject({
      ok: false,
      errors: { companyName: 'Informe o nome da empresa.', password: 'A senha pode ter até 200 caracteres.' },
    });
  });
});

describe('the session cookie', () => {
  test('is Secure and __Host- prefixed in production; not Secure over the sandbox http://127.0.0.1', () => {
    expect(sessionCookie(true)).toEqual({ name: '__Host-dashboard_session', secure: true });
    expect(sessionCookie(false)).toEqual({ name: 'dashboard_session', secure: false });
  });
});
