import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows } from '@gateway/persistence';

/**
 * A payment in a final status keeps what it was paid, failed or expired with, whatever writes to it: only columns
 * left out of this list (updated_at, version, additive fields such as a refunded amount) may still change.
 */
export class FinalPaymentsFrozen1732400001000 implements MigrationInterface {
  name = 'FinalPaymentsFrozen1732400001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await guardFinalRows(queryRunner, {
      table: 'payments',
      finalStatuses: ['paid', 'failed', 'expired', 'cancelled'],
      frozenColumns: [
        'id',
        'business_id',
        'business_name',
        'method',
        'status',
        'amount_centavos',
        'fee_centavos',
        'token',
        'metadata',
        'transaction_id',
        'external_id',
        'failure_code',
        'failure_reason',
        'instructions',
        'created_at',
      ],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropFinalRowGuard(queryRunner, 'payments');
  }
}
