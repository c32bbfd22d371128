import type { EntityManager } from 'typeorm';
import { PspAccountEntity } from './psp-account.entity';

/** The business's PSP account in force; null when it uses the platform's. */
export function accountInForce(manager: EntityManager, businessId: string): Promise<PspAccountEntity | null> {
  return manager
    .createQueryBuilder(PspAccountEntity, 'a')
    .where('a.business_id = :businessId AND a.retired_at IS NULL', { businessId })
    .getOne();
}

/** The business's account in force, locked until the transaction ends. */
export function lockAccountInForce(
  manager: EntityManager,
  businessId: string,
): Promise<PspAccountEntity | null> {
  return manager
    .createQueryBuilder(PspAccountEntity, 'a')
    .setLock('pessimistic_write')
    .where('a.business_id = :businessId AND a.retired_at IS NULL', { businessId })
    .getOne();
}

/** Whether a charge opened at the account is still open. */
export async function hasOpenCharge(manager: EntityManager, accountId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM charges WHERE psp_account_id = $1 AND status = 'active' LIMIT 1`,
    [accountId],
  );
  return rows.length > 0;
}

/** Retires the account: new charges go to the platform's; its charges keep it for what they still need. */
export async function retireAccount(manager: EntityManager, accountId: string): Promise<void> {
  await manager.query(
    `UPDATE psp_accounts SET retired_at = now(), updated_at = now() WHERE account_id = $1 AND retired_at IS NULL`,
    [accountId],
  );
}
