import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows } from '@gateway/persistence';

/**
 * A charge that was paid, expired or failed keeps its outcome, amount, payer reference and BR Code, whatever writes to
 * it, and is never deleted: only its updated_at may still change, and what later migrations allow.
 */
export class FinalChargesFrozen1732400007000 implements MigrationInterface {
  name = 'FinalChargesFrozen1732400007000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await guardFinalRows(queryRunner, {
      table: 'charges',
      finalStatuses: ['paid', 'expired', 'failed'],
      changeableColumns: ['updated_at'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropFinalRowGuard(queryRunner, 'charges');
  }
}
