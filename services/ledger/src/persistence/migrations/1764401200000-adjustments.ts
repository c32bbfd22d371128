import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Operator adjustments (docs/money-model.md#adjustments): one row per adjustment, beside the one journal it posted, with
 * who asked and why. The database holds what the rules say: a business adjustment moves the business's `available`
 * against `platform_adjustments` or `fee_revenue`, a platform adjustment a positive amount between two different
 * platform accounts (never `suspense`, never a business's balance); a reason of 1 to 300 characters; an Idempotency-Key
 * names one adjustment; a journal has one adjustment at most. Written once: never changed, never deleted.
 */
export class Adjustments1764401200000 implements MigrationInterface {
  name = 'Adjustments1764401200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    const platform = `('cash_psp', 'psp_fees', 'platform_adjustments', 'fee_revenue')`;
    await queryRunner.query(`
      CREATE TABLE ${s}.adjustments (
        id text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('business', 'platform')),
        business_id text,
        amount_centavos bigint NOT NULL CHECK (amount_centavos <> 0),
        debit_account text NOT NULL,
        credit_account text NOT NULL,
        allow_negative_available boolean NOT NULL DEFAULT false,
        reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 300 AND reason ~ '\\S'),
        requested_by text NOT NULL CHECK (char_length(requested_by) BETWEEN 1 AND 100),
        idempotency_key text UNIQUE,
        journal_id bigint NOT NULL UNIQUE REFERENCES ${s}.journals (id),
        balance_transaction_id text REFERENCES ${s}.balance_transactions (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT adjustments_business_accounts CHECK (
          kind <> 'business' OR (
            business_id IS NOT NULL AND balance_transaction_id IS NOT NULL AND (
              (amount_centavos > 0 AND credit_account = 'available'
                AND debit_account IN ('platform_adjustments', 'fee_revenue'))
              OR (amount_centavos < 0 AND debit_account = 'available'
                AND credit_account IN ('platform_adjustments', 'fee_revenue'))
            )
          )
        ),
        CONSTRAINT adjustments_platform_accounts CHECK (
          kind <> 'platform' OR (
            business_id IS NULL AND balance_transaction_id IS NULL AND NOT allow_negative_available
            AND amount_centavos > 0 AND debit_account <> credit_account
            AND debit_account IN ${platform} AND credit_account IN ${platform}
          )
        )
      )`);
    await queryRunner.query(`CREATE INDEX adjustments_page ON ${s}.adjustments (created_at DESC, id DESC)`);
    await queryRunner.query(`
      CREATE INDEX adjustments_of_business ON ${s}.adjustments (business_id, created_at DESC, id DESC)
        WHERE business_id IS NOT NULL`);
    // An adjustment is a journal's record: a correction of one is another adjustment.
    await queryRunner.query(`
      CREATE TRIGGER adjustments_immutable BEFORE UPDATE OR DELETE ON ${s}.adjustments
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_book_change()`);
    await queryRunner.query(`
      CREATE TRIGGER adjustments_not_truncated BEFORE TRUNCATE ON ${s}.adjustments
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_book_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.adjustments`);
  }
}
