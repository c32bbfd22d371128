import type { EntityManager } from 'typeorm';
import { PspAccountEntity } from './psp-account.entity';
import type { ChargeKind } from './charge.entity';

/** The business's PSP account in force; null when it uses the platform's. */
export function accountInForce(manager: EntityManager, businessId: string): Promise<PspAccountEntity | null> {
  return manager
    .createQueryBuilder(PspAccountEntity, 'a')
    .where('a.business_id = :businessId AND a.retired_at IS NULL', { businessId })
    .getOne();
}

/** What opening a charge reads first: where the business's charges go, and whether the payment has one already. */
export interface NewChargeFacts {
  /** The business's account in force; null: none (or no business), the platform's. */
  account: PspAccountEntity | null;
  /** The payment has a charge already (a redelivery, or a retry under a new message id). */
  chargeExists: boolean;
}

/** The facts a new charge starts from, in one round trip (what `accountInForce` and a charge lookup would answer). */
export async function newChargeFacts(
  manager: EntityManager,
  businessId: string | undefined,
  paymentId: string,
): Promise<NewChargeFacts> {
  const { columns } = manager.connection.getMetadata(PspAccountEntity);
  const rows: Array<Record<string, unknown>> = await manager.query(
    `SELECT EXISTS (SELECT 1 FROM charges WHERE payment_id = $1) AS charge_exists,
            ${columns.map((column) => `a.${column.databaseName} AS "account.${column.propertyName}"`).join(', ')}
       FROM (SELECT 1) AS one
       LEFT JOIN psp_accounts a ON a.business_id = $2 AND a.retired_at IS NULL`,
    [paymentId, businessId ?? null],
  );
  const row = rows[0];
  if (!row) throw new Error('new charge facts returned no row');
  const account =
    row['account.accountId'] === null
      ? null
      : manager.create(
          PspAccountEntity,
          Object.fromEntries(
            columns.map((column) => [column.propertyName, row[`account.${column.propertyName}`]]),
          ),
        );
  return { account, chargeExists: row.charge_exists === true };
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

/** The account a charge was opened at; null: the platform's (or no such charge). */
export async function accountIdOfCharge(manager: EntityManager, txid: string): Promise<string | null> {
  const rows: Array<{ psp_account_id: string | null }> = await manager.query(
    'SELECT psp_account_id FROM charges WHERE txid = $1',
    [txid],
  );
  return rows[0]?.psp_account_id ?? null;
}

/** Where a charge lives and what it is: its account (null: the platform's) and its kind (`cob`, `cobv`, `cobr`). */
export async function routeOfCharge(
  manager: EntityManager,
  txid: string,
): Promise<{ accountId: string | null; kind: ChargeKind }> {
  const rows: Array<{ psp_account_id: string | null; kind: ChargeKind }> = await manager.query(
    'SELECT psp_account_id, kind FROM charges WHERE txid = $1',
    [txid],
  );
  return { accountId: rows[0]?.psp_account_id ?? null, kind: rows[0]?.kind ?? 'cob' };
}

/** The account a Pix received on one of our charges was paid into; null: the platform's (or a Pix of no charge). */
export async function accountIdOfReceivedPix(
  manager: EntityManager,
  endToEndId: string,
): Promise<string | null> {
  const rows: Array<{ psp_account_id: string | null }> = await manager.query(
    `SELECT c.psp_account_id FROM charges c WHERE c.paid_end_to_end_id = $1
     UNION ALL
     SELECT c.psp_account_id FROM callbacks_received r JOIN charges c ON c.txid = r.txid
      WHERE r.end_to_end_id = $1 AND r.outcome IN ('applied', 'wrong_amount', 'late')
     LIMIT 1`,
    [endToEndId],
  );
  return rows[0]?.psp_account_id ?? null;
}

/** Every business's account in force. */
export function accountsInForce(manager: EntityManager): Promise<PspAccountEntity[]> {
  return manager.createQueryBuilder(PspAccountEntity, 'a').where('a.retired_at IS NULL').getMany();
}
