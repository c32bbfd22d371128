import { apiKeyScopes } from '@gateway/contracts';
import { grantableScopes, keyWithinRole, scopesForNewKey } from '../src/domain/roles';

describe('the scopes a person may give an API key: never more than their role', () => {
  test('an owner or admin with nothing ticked makes a full key; ticked scopes make a limited one', () => {
    expect(scopesForNewKey('owner', undefined)).toBeNull();
    expect(scopesForNewKey('admin', [...apiKeyScopes])).toBeNull();
    expect(scopesForNewKey('admin', 'payments:read')).toEqual(['payments:read']);
    expect(scopesForNewKey('owner', ['refunds:write', 'payments:read'])).toEqual([
      'payments:read',
      'refunds:write',
    ]);
  });

  test("a developer's key holds at most the developer's scopes: no refunds, no payouts", () => {
    const developerKey = scopesForNewKey('developer', undefined);
    expect(developerKey).toEqual(grantableScopes('developer'));
    expect(developerKey).not.toContain('refunds:write');
    expect(developerKey).not.toContain('payouts:write');
    expect(scopesForNewKey('developer', ['payments:read', 'refunds:write'])).toBe('refused');
    expect(scopesForNewKey('developer', ['payouts:write'])).toBe('refused');
  });

  test('unknown, hostile or malformed scopes are refused', () => {
    for (const ticked of ['payments:delete', ['payments:read\u0000'], [{ scope: 'payments:read' }], ['']])
      expect(scopesForNewKey('owner', ticked)).toBe('refused');
  });

  test("a developer may not roll or revoke a key beyond their role (the owner's full key), an owner may", () => {
    expect(keyWithinRole('developer', null)).toBe(false);
    expect(keyWithinRole('developer', ['payments:read', 'refunds:write'])).toBe(false);
    expect(keyWithinRole('developer', ['payments:read', 'webhooks:write'])).toBe(true);
    expect(keyWithinRole('owner', null)).toBe(true);
    expect(keyWithinRole('viewer', ['payments:read'])).toBe(true);
  });
});
