import type { EntityManager } from 'typeorm';
import type { PayoutDestination } from '@gateway/contracts';
import type { Page, PageRequest } from '@gateway/persistence';
import { PayoutAccountEntity } from './payout-account.entity';
import { PayoutEntity } from './payout.entity';

/** Sets (or replaces) the business's payout account; answers it as stored. */
export async function upsertPayoutAccount(
  manager: EntityManager,
  businessId: string,
  account: PayoutDestination,
): Promise<PayoutAccountEntity> {
  await manager.query(
    `INSERT INTO payout_accounts (business_id, pix_key, pix_key_type, holder_document) VALUES ($1, $2, $3, $4)
     ON CONFLICT (business_id) DO UPDATE SET pix_key = EXCLUDED.pix_key, pix_key_type = EXCLUDED.pix_key_type,
       holder_document = EXCLUDED.holder_document, updated_at = now()`,
    [businessId, account.pix_key, account.pix_key_type, account.holder_document],
  );
  return manager.findOneByOrFail(PayoutAccountEntity, { businessId });
}

export function findPayoutAccount(
  manager: EntityManager,
  businessId: string,
): Promise<PayoutAccountEntity | null> {
  return manager.findOneBy(PayoutAccountEntity, { businessId });
}

/**
 * What the business has available, its balance row locked until the transaction ends (null without a row: no money
 * ever moved). A payout decides on what it reads here, and nothing else changes the row meanwhile.
 */
export async function lockAvailable(manager: EntityManager, businessId: string): Promise<number | null> {
  const rows = (await manager.query(
    `SELECT available_centavos FROM balances WHERE business_id = $1 FOR UPDATE`,
    [businessId],
  )) as Array<{ available_centavos: string }>;
  return rows.length === 0 ? null : Number(rows[0]!.available_centavos);
}

/**
 * Moves `centavos` from the business's `available` to `reserved`, only while `available` covers it: false (nothing
 * moved) otherwise. A racing reservation waits for this row and is checked against what this one left.
 */
export async function reserveAvailable(
  manager: EntityManager,
  businessId: string,
  centavos: number,
): Promise<boolean> {
  const [, affected] = (await manager.query(
    `UPDATE balances SET available_centavos = available_centavos - $2, reserved_centavos = reserved_centavos + $2,
       updated_at = now()
     WHERE business_id = $1 AND available_centavos >= $2`,
    [businessId, centavos],
  )) as [unknown, number];
  return affected === 1;
}

export async function insertPayout(
  manager: EntityManager,
  row: Pick<PayoutEntity, 'id' | 'businessId' | 'amountCentavos' | 'requestId'> & {
    destination: PayoutDestination;
  },
): Promise<PayoutEntity> {
  await manager.query(
    `INSERT INTO payouts (id, business_id, amount_centavos, pix_key, pix_key_type, holder_document, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      row.id,
      row.businessId,
      row.amountCentavos,
      row.destination.pix_key,
      row.destination.pix_key_type,
      row.destination.holder_document,
      row.requestId,
    ],
  );
  return manager.findOneByOrFail(PayoutEntity, { id: row.id });
}

/** The payout, locked until the transaction ends; null for one the ledger does not know. */
export function lockPayout(manager: EntityManager, payoutId: string): Promise<PayoutEntity | null> {
  return manager
    .createQueryBuilder(PayoutEntity, 'payout')
    .setLock('pessimistic_write')
    .where('payout.id = :payoutId', { payoutId })
    .getOne();
}

/** A pending payout reaches its outcome (the database refuses any other move). */
export async function markPayoutSettled(
  manager: EntityManager,
  payoutId: string,
  outcome: {
    status: 'paid' | 'failed';
    endToEndId: string | null;
    failureReason: string | null;
    settledAt: Date;
  },
): Promise<PayoutEntity> {
  await manager.query(
    `UPDATE payouts SET status = $2, end_to_end_id = $3, failure_reason = $4, settled_at = $5, updated_at = now()
     WHERE id = $1`,
    [payoutId, outcome.status, outcome.endToEndId, outcome.failureReason, outcome.settledAt],
  );
  return manager.findOneByOrFail(PayoutEntity, { id: payoutId });
}

export function findPayout(manager: EntityManager, payoutId: string): Promise<PayoutEntity | null> {
  return manager.findOneBy(PayoutEntity, { id: payoutId });
}

/**
 * A page of the business's payouts, newest first (creation time, then id): keyset pagination
 * (docs/adr/0013-keyset-pagination.md). Undefined when `startingAfter` is not one of the business's payouts.
 */
export async function listPayoutsOf(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<PayoutEntity> | undefined> {
  const owned = manager
    .createQueryBuilder(PayoutEntity, 'payout')
    .where('payout.business_id = :businessId', { businessId });
  const query = owned
    .clone()
    .orderBy('payout.created_at', 'DESC')
    .addOrderBy('payout.id', 'DESC')
    .limit(page.limit + 1);
  if (page.startingAfter !== null) {
    const startingAfter = page.startingAfter;
    const inList = await owned.clone().andWhere('payout.id = :startingAfter', { startingAfter }).getExists();
    if (!inList) return undefined;
    // Compared in the database: a JS Date would lose the row's microseconds.
    query.andWhere(
      `(payout.created_at, payout.id) < (SELECT created_at, id FROM payouts WHERE id = :startingAfter)`,
      { startingAfter },
    );
  }
  const rows = await query.getMany();
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
