import { Router, type Response } from 'express';
import type { GatewayAdmin } from '../../clients/gateway-admin';
import { merchantKeysOf } from '../../application/shared/merchant-keys';
import { rollMerchantKey } from '../../application/roll-merchant-key';
import { formatDateTime } from '../../domain/format';
import { revokeMerchantKey } from '../../application/revoke-merchant-key';
import { grantableScopes, keyWithinRole, roleAllows, scopesForNewKey } from '../../domain/roles';
import type { DataSource } from 'typeorm';
import { recordMemberAction } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage } from '../respond';
import { keysPage } from '../views/keys';

/** The keys page, with a key just issued (shown this once) or a message. */
export async function showKeys(
  res: Response,
  admin: GatewayAdmin,
  member: Member,
  extra: { status?: number; newKey?: string; notice?: string; error?: string } = {},
): Promise<void> {
  const keys = await merchantKeysOf(admin, member.business);
  sendPage(
    res,
    extra.status ?? 200,
    keysPage(member.viewer, {
      keys,
      timeZone: member.business.timeZone,
      canWrite: roleAllows(member.role, 'api_keys:write'),
      grantable: grantableScopes(member.role),
      ...extra,
    }),
  );
}

/**
 * Whether the person may roll or revoke the key `prefix`: a key that can do more than their role (a developer and the
 * owner's full key) is refused, or rolling it would hand them its powers. Answers the refusal shown, or undefined.
 */
async function beyondRole(admin: GatewayAdmin, member: Member, prefix: string): Promise<string | undefined> {
  const key = (await merchantKeysOf(admin, member.business)).find(
    (candidate) => candidate.keyPrefix === prefix,
  );
  if (key && !keyWithinRole(member.role, key.scopes))
    return 'Esta chave pode fazer mais do que o seu papel permite: só quem tem todas as permissões dela pode trocá-la ou revogá-la.';
  return undefined;
}

/**
 * Chaves de API: the business's keys; a new one (shown once) limited to the scopes ticked, never beyond the person's
 * role; a roll; a revocation.
 */
export function keyRoutes(admin: GatewayAdmin, dataSource: DataSource): Router {
  const router = Router();
  router.get(
    '/chaves',
    requirePermission('api_keys:read'),
    route(async (_req, res) => showKeys(res, admin, memberOf(res))),
  );
  router.post(
    '/chaves',
    requirePermission('api_keys:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const scopes = scopesForNewKey(member.role, (req.body as { scope?: unknown }).scope);
      if (scopes === 'refused')
        return showKeys(res, admin, member, {
          status: 403,
          error: 'Uma chave não pode ter permissões que o seu papel não tem.',
        });
      const issued = await admin.issueApiKey(member.business.id, scopes ?? undefined);
      await recordMemberAction(dataSource, req, member, {
        action: 'api_key_created',
        target: issued.key_prefix,
        details: { scopes: scopes === null ? 'todas' : scopes.join(' ') },
      });
      await showKeys(res, admin, member, { status: 201, newKey: issued.api_key, notice: 'Chave criada.' });
    }),
  );
  router.post(
    '/chaves/:prefix/revogar',
    requirePermission('api_keys:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const refusal = await beyondRole(admin, member, String(req.params.prefix));
      if (refusal) return showKeys(res, admin, member, { status: 403, error: refusal });
      const outcome = await revokeMerchantKey(admin, member.business, String(req.params.prefix));
      if (outcome === 'revoked') {
        await recordMemberAction(dataSource, req, member, {
          action: 'api_key_revoked',
          target: String(req.params.prefix),
        });
        return showKeys(res, admin, member, { notice: `Chave ${String(req.params.prefix)} revogada.` });
      }
      await showKeys(res, admin, member, {
        status: outcome === 'not_found' ? 404 : 409,
        error:
          outcome === 'not_found'
            ? 'Chave não encontrada.'
            : 'Esta chave é a que o painel usa para agir pela empresa: ela não pode ser revogada aqui.',
      });
    }),
  );
  router.post(
    '/chaves/:prefix/trocar',
    requirePermission('api_keys:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const refusal = await beyondRole(admin, member, String(req.params.prefix));
      if (refusal) return showKeys(res, admin, member, { status: 403, error: refusal });
      const outcome = await rollMerchantKey(admin, member.business, String(req.params.prefix));
      if (typeof outcome !== 'string') {
        await recordMemberAction(dataSource, req, member, {
          action: 'api_key_rolled',
          target: String(req.params.prefix),
        });
        return showKeys(res, admin, member, {
          status: 201,
          newKey: outcome.apiKey,
          notice: `Chave trocada. A anterior funciona até ${formatDateTime(outcome.previousExpiresAt, member.business.timeZone)}.`,
        });
      }
      await showKeys(res, admin, member, {
        status: outcome === 'not_found' ? 404 : 409,
        error:
          outcome === 'not_found'
            ? 'Chave não encontrada.'
            : 'Esta chave não pode ser trocada: só uma chave ativa, e não a que o painel usa.',
      });
    }),
  );
  return router;
}
