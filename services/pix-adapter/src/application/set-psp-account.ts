import { createSecureContext } from 'node:tls';
import type { DataSource } from 'typeorm';
import { newPublicId, type PspAccountView, type SetPspAccount } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { sealSecret } from '@gateway/persistence';
import { pspAccountView } from '../domain/psp-account';
import { PspAccountEntity } from '../persistence';
import { lockAccountInForce } from '../persistence/psp-account-store';

export interface SetPspAccountDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  /** The AES-256-GCM key the secret and the certificate are sealed with (PSP_ACCOUNT_SEALING_KEY). */
  sealingKey: Buffer;
  /** Told once the account is stored: its webhook is registered at its PSP (a first attempt awaited). */
  onAccountSet: (account: PspAccountEntity) => Promise<void>;
}

/** Whether the PKCS#12 opens with its passphrase; what went wrong is never said (it may quote the input). */
function certificateOpens(p12: string, passphrase: string | null | undefined): boolean {
  try {
    createSecureContext({ pfx: Buffer.from(p12, 'base64'), ...(passphrase ? { passphrase } : {}) });
    return true;
  } catch {
    return false;
  }
}

/**
 * `pix.psp-account.set.v1` (the operator's): the business's own PSP account, from now on where its charges are opened.
 * The secret, the certificate and its passphrase are sealed before they are stored; a changed account keeps its id and
 * takes a new revision (its cached client is then replaced). The answer carries none of them.
 */
export async function setPspAccount(
  deps: SetPspAccountDeps,
  command: SetPspAccount,
  context: MessageContext,
): Promise<PspAccountView> {
  if (command.certificate_p12 && !certificateOpens(command.certificate_p12, command.certificate_passphrase))
    throw new CommandError('INVALID_FIELDS', 'Campos inválidos: certificate_p12, certificate_passphrase.');
  const seal = (value: string | null | undefined) => (value ? sealSecret(value, deps.sealingKey) : null);
  const stored = await deps.uow.once(context, async (tx) => {
    const current = await lockAccountInForce(tx.manager, command.business_id);
    const now = new Date();
    const account: PspAccountEntity = {
      accountId: current?.accountId ?? newPublicId('pspacc'),
      businessId: command.business_id,
      profile: command.profile,
      // Paths are appended to it: a trailing slash would double theirs.
      baseUrl: command.base_url.replace(/\/+$/, ''),
      oauthTokenUrl: command.oauth_token_url,
      clientId: command.client_id,
      clientSecretSealed: seal(command.client_secret),
      certificateSealed: seal(command.certificate_p12),
      certificatePassphraseSealed: seal(command.certificate_passphrase),
      pixKey: command.pix_key,
      developerAppKey: command.developer_app_key ?? null,
      accountNumber: command.account_number ?? null,
      revision: (current?.revision ?? 0) + 1,
      retiredAt: null,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    await tx.manager.save(PspAccountEntity, account);
    return pspAccountView(account);
  });
  const account = await deps.dataSource.manager.findOneByOrFail(PspAccountEntity, {
    accountId: stored.account_id,
  });
  await deps.onAccountSet(account);
  context.logger.info({ business_id: command.business_id, account_id: stored.account_id }, 'PSP account set');
  return stored;
}
