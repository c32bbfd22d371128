import { apiKeyScopes } from '@gateway/contracts';
import { apiKeyStatus, scopesAllow, scopesToGrant } from '../src/domain/api-key';
import { buildOpenApiDocument, operations } from '../src/http/openapi';

const publicOperations = operations.filter((op) => op.area === 'api' || op.area === 'sandbox');

describe('the scope every public operation needs', () => {
  test('every /v1 operation, the sandbox included, declares one scope of the catalog', () => {
    expect(publicOperations.length).toBeGreaterThan(30);
    const undeclared = publicOperations
      .filter((op) => op.scope === undefined || !apiKeyScopes.includes(op.scope))
      .map((op) => op.operationId);
    expect(undeclared).toEqual([]);
  });

  test('no operation outside /v1 declares one (an operator or a buyer has no API key)', () => {
    expect(
      operations.filter((op) => !publicOperations.includes(op) && op.scope).map((op) => op.operationId),
    ).toEqual([]);
  });

  test('every scope of the catalog is needed by some operation', () => {
    const needed = new Set(publicOperations.map((op) => op.scope));
    expect(apiKeyScopes.filter((scope) => !needed.has(scope))).toEqual([]);
  });

  test('a read is never a write: GETs need a :read scope, every other method a :write one', () => {
    const mismatched = publicOperations
      .filter((op) => op.scope!.endsWith(':read') !== (op.method === 'get'))
      .map((op) => `${op.method} ${op.path} ${op.scope}`);
    expect(mismatched).toEqual([]);
  });

  test('the document shows each operation its scope: as the API key role, as x-required-scope, in words, and its 403', () => {
    const document = buildOpenApiDocument({
      environment: 'sandbox',
      rateLimits: { api: 60, dashboard: 600, admin: 60, checkout: 60 },
    });
    for (const op of publicOperations) {
      const published = (document.paths[op.path] as Record<string, Record<string, unknown>>)[op.method]!;
      expect({
        id: op.operationId,
        security: published.security,
        scope: published['x-required-scope'],
        refused: Object.keys(published.responses as Record<string, unknown>).includes('403'),
      }).toEqual({
        id: op.operationId,
        security: [{ apiKey: [op.scope] }],
        scope: op.scope,
        refused: true,
      });
      expect(published.description).toContain(`\`${op.scope}\``);
    }
  });
});

describe("a key's scopes", () => {
  test('a key without scopes may do everything', () => {
    for (const scope of apiKeyScopes) expect(scopesAllow(null, scope)).toBe(true);
  });

  test('a :write scope covers its own :read scope, not another family', () => {
    expect(scopesAllow(['payments:write'], 'payments:read')).toBe(true);
    expect(scopesAllow(['payments:write'], 'payments:write')).toBe(true);
    expect(scopesAllow(['payments:write'], 'payouts:write')).toBe(false);
    expect(scopesAllow(['payments:write'], 'refunds:read')).toBe(false);
    expect(scopesAllow(['payments:read'], 'payments:write')).toBe(false);
  });

  test('read_only grants every :read scope; each scope is kept once, in the catalog order', () => {
    const reads = apiKeyScopes.filter((scope) => scope.endsWith(':read'));
    expect(scopesToGrant(['read_only'])).toEqual(reads);
    expect(scopesToGrant(['payouts:write', 'payments:read', 'payouts:write', 'read_only'])).toEqual(
      apiKeyScopes.filter((scope) => scope.endsWith(':read') || scope === 'payouts:write'),
    );
    for (const write of apiKeyScopes.filter((scope) => scope.endsWith(':write')))
      expect(scopesAllow(scopesToGrant(['read_only']), write)).toBe(false);
  });

  test('a key is active, rolled until its expiry, then expired; revoked wins over everything', () => {
    const now = new Date('2026-11-29T12:00:00Z');
    const later = new Date('2026-11-29T12:00:01Z');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: null, rolledTo: null }, now)).toBe('active');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: later, rolledTo: 'abc' }, now)).toBe('rolled');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: now, rolledTo: 'abc' }, now)).toBe('expired');
    expect(apiKeyStatus({ revokedAt: now, expiresAt: later, rolledTo: 'abc' }, now)).toBe('revoked');
  });
});
