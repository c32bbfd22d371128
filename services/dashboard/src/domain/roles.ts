import { apiKeyScopes, type ApiKeyScope } from '@gateway/contracts';

/** A person's role in a business, stored per membership; the one who signs the business up is its owner. */
export const roles = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof roles)[number];

/** The role names as the pages show them. */
export const roleLabels: Record<Role, string> = {
  owner: 'Proprietário',
  admin: 'Administrador',
  developer: 'Desenvolvedor',
  viewer: 'Leitura',
};

/**
 * What a person may do, in the words of the API key scopes (the dashboard acts through the public API, each action
 * needs the scope its operation declares), plus the things only the dashboard does: manage the business's API keys
 * and its team, read its audit log, change the business's settings (its time zone), and the one thing only the owner does: set where payouts go (the payout
 * account).
 */
export type Permission =
  | ApiKeyScope
  | 'api_keys:read'
  | 'api_keys:write'
  | 'team:write'
  | 'audit:read'
  | 'business:write'
  | 'payout_account:write';

const readScopes = apiKeyScopes.filter((scope) => scope.endsWith(':read'));
const everyScope: readonly Permission[] = [
  ...apiKeyScopes,
  'api_keys:read',
  'api_keys:write',
  'team:write',
  'audit:read',
  'business:write',
];

/**
 * Each role's permissions. A viewer reads everything but secrets' management; a developer integrates (payments in
 * the sandbox, webhooks, checkouts, customers, API keys) but moves no money out (refunds, payouts); an admin does
 * everything but set the payout account; the owner does everything.
 */
const grants: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set<Permission>([...everyScope, 'payout_account:write']),
  admin: new Set(everyScope),
  developer: new Set<Permission>([
    ...readScopes,
    'payments:write',
    'checkouts:write',
    'customers:write',
    'webhooks:write',
    'api_keys:read',
    'api_keys:write',
  ]),
  viewer: new Set<Permission>([...readScopes, 'api_keys:read']),
};

/** Whether `role` may do what needs `permission`. */
export function roleAllows(role: Role, permission: Permission): boolean {
  return grants[role].has(permission);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}

/** The API key scopes a person of `role` may give a key: those their role has (a key never does more than its maker). */
export function grantableScopes(role: Role): ApiKeyScope[] {
  return apiKeyScopes.filter((scope) => roleAllows(role, scope));
}

/**
 * The scopes of a key a person of `role` asks for from the form: `null` for a key with every scope (nothing ticked by
 * one whose role has every scope, or every scope ticked), the ticked scopes (or, when none is ticked, all the role
 * has) otherwise; `'refused'` when a scope is unknown or beyond the role.
 */
export function scopesForNewKey(role: Role, ticked: unknown): ApiKeyScope[] | null | 'refused' {
  const asked = ticked === undefined ? [] : Array.isArray(ticked) ? ticked : [ticked];
  const grantable = grantableScopes(role);
  if (!asked.every((scope) => typeof scope === 'string' && (grantable as string[]).includes(scope)))
    return 'refused';
  const chosen = asked.length === 0 ? grantable : grantable.filter((scope) => asked.includes(scope));
  return chosen.length === apiKeyScopes.length ? null : chosen;
}

/** Whether a person of `role` may roll or revoke a key with `scopes` (null: every scope): only one within their role. */
export function keyWithinRole(role: Role, scopes: readonly string[] | null): boolean {
  const grantable: readonly string[] = grantableScopes(role);
  return (scopes ?? apiKeyScopes).every((scope) => grantable.includes(scope));
}

/** The scopes as the key form and list word them. */
export const scopeLabels: Record<ApiKeyScope, string> = {
  'payments:read': 'Ver pagamentos',
  'payments:write': 'Criar e cancelar pagamentos',
  'refunds:read': 'Ver reembolsos',
  'refunds:write': 'Reembolsar',
  'checkouts:read': 'Ver checkouts e produtos',
  'checkouts:write': 'Criar e alterar checkouts e produtos',
  'customers:read': 'Ver clientes',
  'customers:write': 'Criar clientes',
  'webhooks:read': 'Ver webhooks',
  'webhooks:write': 'Gerenciar webhooks',
  'events:read': 'Ver eventos',
  'balance:read': 'Ver saldo e extratos',
  'payouts:read': 'Ver saques',
  'payouts:write': 'Solicitar saques',
};
