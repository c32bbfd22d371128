import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows } from '@gateway/persistence';

/**
 * A payment request that settled, expired, was underpaid, failed or was superseded keeps its outcome, what it asked
 * for and what it received, whatever writes to it.
 */
export class FinalRequestsFrozen1732400008000 implements MigrationInterface {
  name = 'FinalRequestsFrozen1732400008000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await guardFinalRows(queryRunner, {
      table: 'payment_requests',
      finalStatuses: ['settled', 'expired', 'underpaid', 'failed', 'superseded'],
      frozenColumns: [
        'reference',
        'payment_id',
        'status',
        'token',
        'mint',
        'amount_base_units',
        'decimals',
        'received_base_units',
        'settled_signature',
      ],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropFinalRowGuard(queryRunner, 'payment_requests');
  }
}
