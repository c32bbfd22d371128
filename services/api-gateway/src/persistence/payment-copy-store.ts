import type { EntityManager } from 'typeorm';
import type { CryptoInstructions, PaymentRecord, PixInstructions } from '@gateway/contracts';

/** The gateway's copy of a payment (docs/adr/0042-gateway-payment-read-model.md). */
export interface PaymentCopy {
  record: PaymentRecord;
  /** The rail instructions the last reply or change carried (outcome events carry none); null when none did. */
  instructions: PixInstructions | CryptoInstructions | null;
  /** A change is in flight (or was announced without its record) and the copy does not hold its version yet. */
  stale: boolean;
  /** How long ago the copy was known true (a read's answer: when stored; an event: when it occurred). */
  ageMs: number;
}

/** What the payment service sent of one payment, to be stored as its copy (see `storePaymentCopies`). */
export interface SentPayment {
  record: PaymentRecord;
  instructions: PixInstructions | CryptoInstructions | null;
  /**
   * When the record was true: an event's `occurred_at` (a late event is not made younger than it is); null for a reply,
   * a read or the change feed, true now.
   */
  asOf: string | null;
}

/**
 * Stores what the payment service sent of payments, each only over an older copy (a lower `version`) or the same one:
 * events, replies and the change feed arrive in any order, twice, from any replica, and a copy never goes back.
 * Instructions absent from what is sent are kept. Every record must carry its version. `ofGeneration`: a change feed
 * read's generation (see `readCopyFeedPosition`): nothing is stored once the copies were deleted since it began, and
 * a copy the feed sends again at the same version (every payment the gateway made or saw an event of) is left as it is
 * unless it lacks instructions or differs (a payment mended by hand keeps its version): no rewrite of a row that would
 * not change. Any other store of the same version rewrites the copy only when that changes it: a record that differs,
 * instructions it lacked or that differ, or a later time it is known true as of. The event of a payment just created
 * (older than the create's answer, which the gateway stored) so costs a lookup, not a second row.
 */
export async function storePaymentCopies(
  manager: EntityManager,
  sent: readonly SentPayment[],
  ofGeneration?: string,
): Promise<void> {
  if (sent.length === 0) return;
  await manager.query(
    // The listed columns (created_at, status, method) are set from the record by the table's trigger.
    `INSERT INTO payment_copies AS copy (payment_id, business_id, version, record, instructions, stored_at)
     SELECT sent.record->>'payment_id', sent.record->>'business_id', (sent.record->>'version')::integer, sent.record,
            sent.instructions, LEAST(now(), COALESCE(sent.as_of, now()))
       FROM jsonb_to_recordset($1::jsonb) AS sent(record jsonb, instructions jsonb, as_of timestamptz)
      WHERE $2::bigint IS NULL OR EXISTS (SELECT 1 FROM payment_copy_feed WHERE generation = $2::bigint)
     ON CONFLICT (payment_id) DO UPDATE
       SET version = EXCLUDED.version,
           record = EXCLUDED.record,
           instructions = COALESCE(EXCLUDED.instructions, copy.instructions),
           stored_at = GREATEST(copy.stored_at, EXCLUDED.stored_at)
     WHERE copy.version < EXCLUDED.version
        OR (copy.version = EXCLUDED.version
            AND (copy.record IS DISTINCT FROM EXCLUDED.record
                 OR ($2::bigint IS NOT NULL AND copy.instructions IS NULL)
                 OR ($2::bigint IS NULL
                     AND (EXCLUDED.stored_at > copy.stored_at
                          OR (EXCLUDED.instructions IS NOT NULL
                              AND EXCLUDED.instructions IS DISTINCT FROM copy.instructions)))))`,
    [
      JSON.stringify(sent.map(({ record, instructions, asOf }) => ({ record, instructions, as_of: asOf }))),
      // A read of the change feed stores only into the generation it began in (copies deleted since: not over them).
      ofGeneration ?? null,
    ],
  );
}

/** One payment's `storePaymentCopies`. */
export function storePaymentCopy(
  manager: EntityManager,
  record: PaymentRecord,
  instructions: PixInstructions | CryptoInstructions | null,
  asOf: string | null,
): Promise<void> {
  return storePaymentCopies(manager, [{ record, instructions, asOf }]);
}

/**
 * Marks the copy of the business's payment (none is made when there is none): it is not answered until it holds a
 * version newer than the one it holds now (the change's answer, or its event), or for `forMs` at most (a change that
 * failed or never committed, an answer and an event both lost).
 */
export async function markPaymentCopyStale(
  manager: EntityManager,
  businessId: string,
  paymentId: string,
  forMs: number,
): Promise<void> {
  await manager.query(
    `UPDATE payment_copies
        SET stale_below = GREATEST(stale_below, version + 1), stale_until = now() + make_interval(secs => $3)
      WHERE payment_id = $1 AND business_id = $2`,
    [paymentId, businessId, forMs / 1000],
  );
}

/** The copy of the business's payment, if the gateway holds one. */
export async function findPaymentCopy(
  manager: EntityManager,
  businessId: string,
  paymentId: string,
): Promise<PaymentCopy | null> {
  const rows: Array<{
    record: PaymentRecord;
    instructions: PixInstructions | CryptoInstructions | null;
    stale: boolean;
    age_ms: number;
  }> = await manager.query(
    `SELECT record, instructions, (version < stale_below AND stale_until > now()) AS stale,
            (EXTRACT(EPOCH FROM now() - stored_at) * 1000)::float8 AS age_ms
       FROM payment_copies WHERE payment_id = $1 AND business_id = $2`,
    [paymentId, businessId],
  );
  const row = rows[0];
  return row
    ? { record: row.record, instructions: row.instructions, stale: row.stale, ageMs: row.age_ms }
    : null;
}

/** What a list of the business's payments is narrowed by (the payment service's filters). */
export interface PaymentCopyFilters {
  status?: string;
  method?: string;
  /** ISO-8601 date-times: created at or after, created before. */
  createdGte?: string;
  createdLt?: string;
}

/**
 * A page of the copies of the business's payments, newest first (creation time, then id: the payment service's order),
 * after the payment `startingAfter` (any of its copies, even one the filters leave out); undefined when the business
 * has no copy of that id. Each copy says whether a change of it is in flight.
 */
export async function listPaymentCopies(
  manager: EntityManager,
  businessId: string,
  filters: PaymentCopyFilters,
  page: { limit: number; startingAfter: string | null },
): Promise<{ rows: Array<{ record: PaymentRecord; stale: boolean }>; hasMore: boolean } | undefined> {
  const conditions = ['listed.business_id = $1'];
  const parameters: unknown[] = [businessId];
  const condition = (sql: (placeholder: string) => string, value: unknown) => {
    parameters.push(value);
    conditions.push(sql(`$${parameters.length}`));
  };
  if (filters.status !== undefined) condition((p) => `listed.status = ${p}`, filters.status);
  if (filters.method !== undefined) condition((p) => `listed.method = ${p}`, filters.method);
  if (filters.createdGte !== undefined)
    condition((p) => `listed.created_at >= ${p}::timestamptz`, filters.createdGte);
  if (filters.createdLt !== undefined)
    condition((p) => `listed.created_at < ${p}::timestamptz`, filters.createdLt);
  if (page.startingAfter !== null) {
    const known: unknown[] = await manager.query(
      'SELECT 1 FROM payment_copies WHERE payment_id = $1 AND business_id = $2',
      [page.startingAfter, businessId],
    );
    if (known.length === 0) return undefined;
    condition(
      (p) => `(listed.created_at, listed.payment_id) <
        (SELECT created_at, payment_id FROM payment_copies WHERE payment_id = ${p})`,
      page.startingAfter,
    );
  }
  parameters.push(page.limit + 1);
  const rows: Array<{ record: PaymentRecord; stale: boolean }> = await manager.query(
    `SELECT record, (version < stale_below AND stale_until > now()) AS stale
       FROM payment_copies listed
      WHERE ${conditions.join(' AND ')}
      ORDER BY listed.created_at DESC, listed.payment_id DESC
      LIMIT $${parameters.length}`,
    parameters,
  );
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** Whether a change of one of the business's payments is in flight (its copy marked, see `markPaymentCopyStale`). */
export async function anyPaymentCopyMarked(manager: EntityManager, businessId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM payment_copies
      WHERE business_id = $1 AND version < stale_below AND stale_until > now() LIMIT 1`,
    [businessId],
  );
  return rows.length > 0;
}

/** Where the copies stand in the payment service's change feed (docs/adr/0043-payment-lists-from-the-change-feed.md). */
export interface CopyFeedPosition {
  /** Every change by a transaction below this id is in the copies ('0': read the feed from its start, a rebuild). */
  settledBelow: string;
  /** Moves on each time the copies are deleted: a read begun in an older one neither stores nor records. */
  generation: string;
}

/** The recorded position; a row deleted is made again at the feed's start, in a new generation. */
export async function readCopyFeedPosition(manager: EntityManager): Promise<CopyFeedPosition> {
  const read = async () =>
    (await manager.query(
      `SELECT settled_below::text AS settled_below, generation::text AS generation FROM payment_copy_feed`,
    )) as Array<{ settled_below: string; generation: string }>;
  let [row] = await read();
  if (!row) {
    await manager.query(`INSERT INTO payment_copy_feed (id) VALUES (true) ON CONFLICT (id) DO NOTHING`);
    [row] = await read();
  }
  return { settledBelow: row!.settled_below, generation: row!.generation };
}

/**
 * Records that every change below `settledBelow` is in the copies, for a read begun at `from`, only while the copies
 * are still of that read's generation (not deleted since), never moving a position back. Whether they still were: a
 * read whose copies were deleted meanwhile proves nothing.
 */
export async function moveCopyFeedPosition(
  manager: EntityManager,
  from: CopyFeedPosition,
  settledBelow: string,
): Promise<boolean> {
  const rows: Array<{ held: boolean }> = await manager.query(
    `WITH moved AS (
       UPDATE payment_copy_feed SET settled_below = $1::xid8, moved_at = now()
        WHERE generation = $2 AND settled_below < $1::xid8
       RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM payment_copy_feed WHERE generation = $2) AS held`,
    [settledBelow, from.generation],
  );
  return rows[0]?.held === true;
}

/** Deletes every copy (the table's trigger sends the position back to the feed's start): they are rebuilt. */
export async function forgetPaymentCopies(manager: EntityManager): Promise<void> {
  await manager.transaction(async (transaction) => {
    // Not behind a long read of the table for long: the next pass tries again.
    await transaction.query(`SET LOCAL lock_timeout = '5s'`);
    await transaction.query('TRUNCATE payment_copies');
  });
}
