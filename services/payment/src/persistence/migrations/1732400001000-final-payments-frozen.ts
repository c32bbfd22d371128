import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows } from '@gateway/persistence';

/**
 * A payment in a final status keeps what it was paid, failed or expired with, whatever writes to it, and is never
 * deleted: only its updated_at and version may still change, and additive fields later migrations allow.
 */
export class FinalPaymentsFrozen1732400001000 implements MigrationInterface {
  name = 'FinalPaymentsFrozen1732400001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await guardFinalRows(queryRunner, {
      table: 'payments',
      finalStatuses: ['paid', 'failed', 'expired', 'cancelled'],
      changeableColumns: ['updated_at', 'version'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropFinalRowGuard(queryRunner, 'payments');
  }
}
