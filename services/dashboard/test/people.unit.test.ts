import { randomBytes } from 'node:crypto';
import { requestOrigin, USER_AGENT_MAX_LENGTH } from '../src/domain/audit';
import { invitationMail, passwordResetMail, verificationMail } from '../src/domain/mail-messages';
import { hashToken, isTokenShaped, newOneTimeToken, tokenLink } from '../src/domain/one-time-token';
import { roleAllows, roles } from '../src/domain/roles';
import { mayChangeRole, mayInvite, mayRemove } from '../src/domain/team-rules';

describe('one-time tokens', () => {
  test('travel as 256 random bits and are kept as their SHA-256 only', () => {
    const { token, hash } = newOneTimeToken(randomBytes);
    expect(isTokenShaped(token)).toBe(true);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashToken(token));
    expect(hash).not.toContain(token);
    expect(newOneTimeToken(randomBytes).token).not.toBe(token);
  });

  test('anything not shaped like one is refused before any look-up', () => {
    for (const value of [undefined, '', 'curto', `${'a'.repeat(43)}=`, 'a'.repeat(44), ['x'], 42])
      expect(isTokenShaped(value)).toBe(false);
  });

  test('are linked under the configured public address, never a request host', () => {
    const link = tokenLink('https://painel.example.com', '/redefinir-senha', 'abc_-1');
    expect(link).toBe('https://painel.example.com/redefinir-senha?token=abc_-1');
  });
});

describe('the mails', () => {
  test('carry their link, and say how long it works', () => {
    const link = 'http://127.0.0.1:3080/x?token=t';
    expect(verificationMail('a@b.test', link)).toMatchObject({
      to: 'a@b.test',
      subject: 'Confirme seu e-mail',
    });
    expect(verificationMail('a@b.test', link).text).toContain(link);
    expect(passwordResetMail('a@b.test', link).text).toMatch(/1 hora/);
    const invitation = invitationMail('a@b.test', link, {
      businessName: 'Loja <b>',
      role: 'developer',
      invitedBy: 'dona@loja.test',
    });
    expect(invitation.subject).toBe('Convite para Loja <b>');
    expect(invitation.text).toContain('Desenvolvedor');
    expect(invitation.text).toContain(link);
  });
});

describe('team rules', () => {
  test('only who manages the team invites, and only an owner invites an owner', () => {
    expect(mayInvite('owner', 'owner')).toBeNull();
    expect(mayInvite('admin', 'admin')).toBeNull();
    expect(mayInvite('admin', 'owner')).toBe('owner_only');
    expect(mayInvite('developer', 'viewer')).toBe('not_allowed');
    expect(mayInvite('viewer', 'viewer')).toBe('not_allowed');
  });

  test("an admin neither promotes to owner nor touches an owner; owners' changes are the owners'", () => {
    expect(mayChangeRole('admin', 'developer', 'owner', 1)).toBe('owner_only');
    expect(mayChangeRole('admin', 'owner', 'admin', 2)).toBe('owner_only');
    expect(mayChangeRole('admin', 'developer', 'admin', 1)).toBeNull();
    expect(mayChangeRole('owner', 'developer', 'owner', 1)).toBeNull();
    expect(mayChangeRole('developer', 'viewer', 'developer', 1)).toBe('not_allowed');
    expect(mayRemove('admin', 'owner', 2)).toBe('owner_only');
    expect(mayRemove('viewer', 'viewer', 1)).toBe('not_allowed');
    expect(mayRemove('admin', 'viewer', 1)).toBeNull();
  });

  test('the business always keeps one owner', () => {
    expect(mayChangeRole('owner', 'owner', 'admin', 1)).toBe('last_owner');
    expect(mayChangeRole('owner', 'owner', 'admin', 2)).toBeNull();
    expect(mayChangeRole('owner', 'owner', 'owner', 1)).toBeNull();
    expect(mayRemove('owner', 'owner', 1)).toBe('last_owner');
    expect(mayRemove('owner', 'owner', 2)).toBeNull();
  });

  test('the audit log is read by owners and admins only', () => {
    expect(roles.filter((role) => roleAllows(role, 'audit:read'))).toEqual(['owner', 'admin']);
  });
});

describe('the audit origin', () => {
  test('keeps the client address and a bounded user agent', () => {
    expect(requestOrigin('203.0.113.7', 'Mozilla/5.0')).toEqual({
      clientAddress: '203.0.113.7',
      userAgent: 'Mozilla/5.0',
    });
    expect(requestOrigin('::ffff:127.0.0.1', undefined).clientAddress).toBe('127.0.0.1');
    expect(requestOrigin('2001:db8::1', undefined).clientAddress).toBe('2001:db8::1');
    expect(requestOrigin(undefined, 'x'.repeat(5000)).userAgent).toHaveLength(USER_AGENT_MAX_LENGTH);
    expect(requestOrigin(undefined, undefined)).toEqual({ clientAddress: null, userAgent: null });
  });
});
