import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows } from '@gateway/persistence';

/** A charge that was paid, expired or failed keeps its outcome, amount and payer reference, whatever writes to it. */
export class FinalChargesFrozen1732400007000 implements MigrationInterface {
  name = 'FinalChargesFrozen1732400007000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await guardFinalRows(queryRunner, {
      table: 'charges',
      finalStatuses: ['paid', 'expired', 'failed'],
      frozenColumns: ['txid', 'payment_id', 'status', 'amount_centavos', 'revisao', 'paid_end_to_end_id'],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropFinalRowGuard(queryRunner, 'charges');
  }
}
