import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A PIX payment with a due date (docs/adr/0048-due-date-charges-and-subscriptions.md, section 1). It keeps the fee
 * terms it was created under (`fee_percent_bps`, `fee_fixed_centavos`: its fee is computed again on what is paid), and
 * once paid what was paid (`amount_paid_centavos`) and its parts. The database holds the money rules: the parts all
 * there or none, none negative, the original the payment's amount, the parts adding up to what was paid, only a paid
 * payment with them, the fee within what was paid; and refunds and disputes within what was paid, not the original (a
 * discount paid less, a fine more).
 */
export class DueDatePayments1764403200810 implements MigrationInterface {
  name = 'DueDatePayments1764403200810';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        ADD COLUMN fee_percent_bps integer CHECK (fee_percent_bps BETWEEN 0 AND 10000),
        ADD COLUMN fee_fixed_centavos bigint CHECK (fee_fixed_centavos >= 0),
        ADD COLUMN amount_paid_centavos bigint,
        ADD COLUMN paid_original_centavos bigint,
        ADD COLUMN paid_fine_centavos bigint,
        ADD COLUMN paid_interest_centavos bigint,
        ADD COLUMN paid_reduction_centavos bigint,
        ADD COLUMN paid_discount_centavos bigint,
        ADD CONSTRAINT payments_fee_terms_together CHECK ((fee_percent_bps IS NULL) = (fee_fixed_centavos IS NULL)),
        ADD CONSTRAINT payments_amount_parts_together CHECK (
          num_nulls(amount_paid_centavos, paid_original_centavos, paid_fine_centavos, paid_interest_centavos,
                    paid_reduction_centavos, paid_discount_centavos) IN (0, 6)),
        ADD CONSTRAINT payments_amount_parts_add_up CHECK (
          amount_paid_centavos IS NULL OR (
            amount_paid_centavos > 0
            AND paid_original_centavos = amount_centavos
            AND paid_fine_centavos >= 0 AND paid_interest_centavos >= 0
            AND paid_reduction_centavos >= 0 AND paid_discount_centavos >= 0
            AND paid_original_centavos + paid_fine_centavos + paid_interest_centavos
                - paid_reduction_centavos - paid_discount_centavos = amount_paid_centavos
            AND status = 'paid'
            AND fee_centavos <= amount_paid_centavos)),
        DROP CONSTRAINT payments_refunds_within_amount,
        ADD CONSTRAINT payments_refunds_within_amount CHECK (
          0 <= refunded_centavos AND refunded_centavos <= refund_reserved_centavos
          AND refund_reserved_centavos <= COALESCE(amount_paid_centavos, amount_centavos)),
        DROP CONSTRAINT payments_within_amount_with_disputes,
        ADD CONSTRAINT payments_within_amount_with_disputes CHECK (
          0 <= disputed_centavos
          AND refund_reserved_centavos + disputed_centavos <= COALESCE(amount_paid_centavos, amount_centavos))`);
  }

  /**
   * Back to refunds and disputes within the original amount. A payment paid with a fine may by now have more than its
   * original refunded or reserved, a row the old rule does not hold: the old rule comes back NOT VALID, so that undoing
   * this runs on a database holding due-date payments. New rows and every row written again are held to it; the rows
   * that break it stay as they are (their money is real: nothing is clamped), and `ALTER TABLE payments VALIDATE
   * CONSTRAINT payments_refunds_within_amount` (and `payments_within_amount_with_disputes`) makes it whole once
   * they are settled (docs/adr/0048-due-date-charges-and-subscriptions.md, section 1).
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        DROP CONSTRAINT payments_refunds_within_amount,
        DROP CONSTRAINT payments_within_amount_with_disputes,
        DROP COLUMN fee_percent_bps, DROP COLUMN fee_fixed_centavos, DROP COLUMN amount_paid_centavos,
        DROP COLUMN paid_original_centavos, DROP COLUMN paid_fine_centavos, DROP COLUMN paid_interest_centavos,
        DROP COLUMN paid_reduction_centavos, DROP COLUMN paid_discount_centavos,
        ADD CONSTRAINT payments_refunds_within_amount CHECK (
          0 <= refunded_centavos AND refunded_centavos <= refund_reserved_centavos
          AND refund_reserved_centavos <= amount_centavos) NOT VALID,
        ADD CONSTRAINT payments_within_amount_with_disputes CHECK (
          0 <= disputed_centavos AND refund_reserved_centavos + disputed_centavos <= amount_centavos) NOT VALID`);
  }
}
